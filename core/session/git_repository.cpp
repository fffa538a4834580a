#include "session/git_repository.h"

#include "util/error.h"

#include <git2.h>
#include <git2/sys/commit.h>
#include <git2/sys/odb_backend.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <unordered_map>

#include <mutex>

namespace ak {
namespace {

namespace fs = std::filesystem;

void ensure_libgit2_initialised() {
    static std::once_flag once;
    std::call_once(once, [] {
        // Never shut down: objects may live until exit, and libgit2 keeps a reference count anyway.
        if (git_libgit2_init() < 0) throw Error(ErrorKind::Git, "cannot initialise libgit2");
        git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
        // A session is read by whoever may read its folder: a team's session on a shared GPU server
        // is viewed by users who do not own it. libgit2's ownership check (safe.directory) guards
        // against a repository's config running programs, which libgit2 never does, so it is off.
        git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
        // Sessions depend on no user's git configuration (an unreadable HOME must not stop a viewer).
        for (const git_config_level_t level : {GIT_CONFIG_LEVEL_SYSTEM, GIT_CONFIG_LEVEL_XDG,
                                               GIT_CONFIG_LEVEL_GLOBAL, GIT_CONFIG_LEVEL_PROGRAMDATA})
            git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, level, "");
    });
}

// Throws Error naming `what` and libgit2's explanation when `rc` is an error code.
void check(int rc, const std::string& what) {
    if (rc >= 0) return;
    const git_error* e = git_error_last();
    std::string message = what + ": " + (e && e->message ? e->message : "libgit2 error " + std::to_string(rc));
    throw Error(rc == GIT_ENOTFOUND ? ErrorKind::NotFound : ErrorKind::Git, std::move(message));
}

template <typename T, void (*Free)(T*)>
struct Freer {
    void operator()(T* p) const { Free(p); }
};
template <typename T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, Freer<T, Free>>;

using RepositoryPtr = Owned<git_repository, git_repository_free>;
using CommitPtr = Owned<git_commit, git_commit_free>;
using TreePtr = Owned<git_tree, git_tree_free>;
using TreeEntryPtr = Owned<git_tree_entry, git_tree_entry_free>;
using BlobPtr = Owned<git_blob, git_blob_free>;
using ReferencePtr = Owned<git_reference, git_reference_free>;
using IteratorPtr = Owned<git_reference_iterator, git_reference_iterator_free>;
using SignaturePtr = Owned<git_signature, git_signature_free>;
using TreeBuilderPtr = Owned<git_treebuilder, git_treebuilder_free>;
using OdbPtr = Owned<git_odb, git_odb_free>;
using DiffPtr = Owned<git_diff, git_diff_free>;
using RevwalkPtr = Owned<git_revwalk, git_revwalk_free>;
using ReflogPtr = Owned<git_reflog, git_reflog_free>;
using RefdbPtr = Owned<git_refdb, git_refdb_free>;
using IndexPtr = Owned<git_index, git_index_free>;

std::string to_hex(const git_oid& oid) {
    char buffer[GIT_OID_HEXSZ + 1];
    git_oid_tostr(buffer, sizeof buffer, &oid);
    return buffer;
}

// A path written into a tree: components of 1..255 bytes (git stores names longer than 65,535
// bytes wrongly, file systems refuse more than 255), no NUL, not ".", ".." or ".git".
void check_tree_path(const std::string& path) {
    const auto refuse = [&](const std::string& why) {
        const std::string shown = path.size() > 80 ? path.substr(0, 80) + "... (" + std::to_string(path.size()) +
                                                         " bytes)"
                                                   : path;
        throw Error(ErrorKind::Usage, "cannot write '" + shown + "' into a git tree: " + why);
    };
    if (path.empty()) refuse("the path is empty");
    if (path.find('\0') != std::string::npos) refuse("it contains a NUL byte");
    std::size_t start = 0;
    while (true) {
        const std::size_t slash = path.find('/', start);
        const std::string_view part = std::string_view(path).substr(start, slash == std::string::npos ? std::string::npos : slash - start);
        if (part.empty()) refuse("it has an empty component");
        if (part == "." || part == ".." || part == ".git") refuse("it has a component '" + std::string(part) + "'");
        if (part.size() > 255)
            refuse("a component is " + std::to_string(part.size()) + " bytes long (at most 255)");
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
}

git_oid parse_oid(const std::string& id, const std::string& what) {
    git_oid oid;
    if (id.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, id.c_str()) < 0)
        throw Error(ErrorKind::NotFound, what + ": '" + id + "' is not a 40-digit commit id");
    return oid;
}

// SHA-1 of a pack file's bytes (its trailer). Objects are named by libgit2; only the pack's own
// checksum is computed here.
class Sha1 {
public:
    void update(const unsigned char* data, std::size_t size) {
        total_ += size;
        while (size > 0) {
            const std::size_t take = std::min(size, sizeof block_ - used_);
            std::memcpy(block_ + used_, data, take);
            used_ += take;
            data += take;
            size -= take;
            if (used_ == sizeof block_) {
                compress();
                used_ = 0;
            }
        }
    }
    void finish(unsigned char out[20]) {
        const std::uint64_t bits = total_ * 8;
        const unsigned char pad = 0x80;
        update(&pad, 1);
        const unsigned char zero = 0;
        while (used_ != 56) update(&zero, 1);
        unsigned char length[8];
        for (int i = 0; i < 8; ++i) length[i] = static_cast<unsigned char>(bits >> (56 - 8 * i));
        update(length, 8);
        for (int i = 0; i < 5; ++i)
            for (int j = 0; j < 4; ++j) out[4 * i + j] = static_cast<unsigned char>(h_[i] >> (24 - 8 * j));
    }

private:
    static std::uint32_t rotl(std::uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }
    void compress() {
        std::uint32_t w[80];
        for (int i = 0; i < 16; ++i)
            w[i] = std::uint32_t(block_[4 * i]) << 24 | std::uint32_t(block_[4 * i + 1]) << 16 |
                   std::uint32_t(block_[4 * i + 2]) << 8 | std::uint32_t(block_[4 * i + 3]);
        for (int i = 16; i < 80; ++i) w[i] = rotl(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
        std::uint32_t a = h_[0], b = h_[1], c = h_[2], d = h_[3], e = h_[4];
        for (int i = 0; i < 80; ++i) {
            std::uint32_t f, k;
            if (i < 20) f = (b & c) | (~b & d), k = 0x5A827999;
            else if (i < 40) f = b ^ c ^ d, k = 0x6ED9EBA1;
            else if (i < 60) f = (b & c) | (b & d) | (c & d), k = 0x8F1BBCDC;
            else f = b ^ c ^ d, k = 0xCA62C1D6;
            const std::uint32_t t = rotl(a, 5) + f + e + k + w[i];
            e = d, d = c, c = rotl(b, 30), b = a, a = t;
        }
        h_[0] += a, h_[1] += b, h_[2] += c, h_[3] += d, h_[4] += e;
    }
    std::uint32_t h_[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    unsigned char block_[64] = {};
    std::size_t used_ = 0;
    std::uint64_t total_ = 0;
};

struct OidHash {
    std::size_t operator()(const git_oid& oid) const {
        std::size_t h;
        std::memcpy(&h, oid.id, sizeof h);
        return h;
    }
};
struct OidEqual {
    bool operator()(const git_oid& a, const git_oid& b) const { return std::memcmp(a.id, b.id, GIT_OID_RAWSZ) == 0; }
};

}  // namespace

// An object store in memory for begin_batch(): a libgit2 object database backend whose objects
// flush_batch() writes as one pack file. Unlike libgit2's mempack it writes no deltas (their search
// cost most of an import's time) and compresses nothing (zlib "stored" blocks): the pack is written
// and indexed at memory speed; `git gc` can compress it later.
struct BatchStore {
    git_odb_backend parent;  // first member: libgit2 passes &parent back
    struct Object {
        git_object_t type;
        std::string data;
    };
    std::unordered_map<git_oid, Object, OidHash, OidEqual> objects;
    std::vector<git_oid> order;

    static BatchStore* of(git_odb_backend* backend) { return reinterpret_cast<BatchStore*>(backend); }

    static int read(void** out, std::size_t* size, git_object_t* type, git_odb_backend* backend, const git_oid* oid) {
        const auto it = of(backend)->objects.find(*oid);
        if (it == of(backend)->objects.end()) return GIT_ENOTFOUND;
        void* buffer = git_odb_backend_data_alloc(backend, it->second.data.size() + 1);
        if (!buffer) return -1;
        std::memcpy(buffer, it->second.data.data(), it->second.data.size());
        *out = buffer;
        *size = it->second.data.size();
        *type = it->second.type;
        return 0;
    }
    static int read_header(std::size_t* size, git_object_t* type, git_odb_backend* backend, const git_oid* oid) {
        const auto it = of(backend)->objects.find(*oid);
        if (it == of(backend)->objects.end()) return GIT_ENOTFOUND;
        *size = it->second.data.size();
        *type = it->second.type;
        return 0;
    }
    static int write(git_odb_backend* backend, const git_oid* oid, const void* data, std::size_t size, git_object_t type) {
        BatchStore* store = of(backend);
        const auto [it, added] = store->objects.try_emplace(*oid);
        if (added) {
            it->second.type = type;
            it->second.data.assign(static_cast<const char*>(data), size);
            store->order.push_back(*oid);
        }
        return 0;
    }
    // Adds an object without going through git_odb_write, whose existence check searches every pack's
    // index and, on a miss (every new object), rescans the pack folder: that cost grew with the import
    // and kept every index resident (issue 13). An object already in a pack is stored again: allowed.
    git_oid put(git_object_t type, std::string_view data) {
        git_oid oid;
        check(git_odb_hash(&oid, data.data(), data.size(), type), "hashing an object");
        (void)write(&parent, &oid, data.data(), data.size(), type);
        return oid;
    }
    static int exists(git_odb_backend* backend, const git_oid* oid) { return of(backend)->objects.count(*oid) ? 1 : 0; }
    static int freshen(git_odb_backend* backend, const git_oid* oid) {
        return of(backend)->objects.count(*oid) ? 0 : GIT_ENOTFOUND;
    }
    static void free_store(git_odb_backend* backend) { delete of(backend); }

    static BatchStore* create() {
        auto* store = new BatchStore();
        git_odb_init_backend(&store->parent, GIT_ODB_BACKEND_VERSION);
        store->parent.read = &read;
        store->parent.read_header = &read_header;
        store->parent.write = &write;
        store->parent.exists = &exists;
        store->parent.freshen = &freshen;
        store->parent.free = &free_store;
        return store;
    }

    // The objects as a version-2 pack: undeltified entries, each a zlib stream of stored blocks, handed
    // to `sink` in pieces of about 1 MiB (the whole pack is never in memory next to the objects).
    template <typename Sink>
    void pack(Sink&& sink) const {
        Sha1 sha;
        std::string out = "PACK";
        const auto hand_over = [&] {
            sha.update(reinterpret_cast<const unsigned char*>(out.data()), out.size());
            sink(std::string_view(out));
            out.clear();
        };
        const auto be32 = [&](std::uint32_t v) {
            for (int i = 3; i >= 0; --i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
        };
        be32(2);
        be32(static_cast<std::uint32_t>(order.size()));
        for (const git_oid& oid : order) {
            const Object& object = objects.at(oid);
            std::size_t size = object.data.size();
            unsigned char byte = static_cast<unsigned char>((int(object.type) << 4) | (size & 0x0F));
            size >>= 4;
            while (size) {
                out += static_cast<char>(byte | 0x80);
                byte = static_cast<unsigned char>(size & 0x7F);
                size >>= 7;
            }
            out += static_cast<char>(byte);
            out += "\x78\x01";  // zlib header: deflate, no dictionary
            std::uint32_t a = 1, b = 0;
            const std::string& data = object.data;
            std::size_t at = 0;
            do {
                const std::size_t take = std::min<std::size_t>(data.size() - at, 65535);
                const bool last = at + take == data.size();
                out += static_cast<char>(last ? 1 : 0);
                out += static_cast<char>(take & 0xFF);
                out += static_cast<char>(take >> 8);
                out += static_cast<char>(~take & 0xFF);
                out += static_cast<char>((~take >> 8) & 0xFF);
                out.append(data, at, take);
                // Adler-32, reduced every 5552 bytes (the most that cannot overflow 32 bits).
                for (std::size_t i = at; i < at + take;) {
                    const std::size_t end = std::min(at + take, i + 5552);
                    for (; i < end; ++i) {
                        a += static_cast<unsigned char>(data[i]);
                        b += a;
                    }
                    a %= 65521;
                    b %= 65521;
                }
                at += take;
            } while (at < data.size());
            be32((b << 16) | a);  // Adler-32
            if (out.size() >= (1u << 20)) hand_over();
        }
        hand_over();
        unsigned char digest[20];
        sha.finish(digest);
        sink(std::string_view(reinterpret_cast<const char*>(digest), 20));
    }
};

namespace {
}  // namespace

// Batch mode: `base` (null: the empty tree) with the file at `path` set to `blob`, written to the store
// with its parent trees (as libgit2's upsert would, without its per-object existence checks).
git_oid updated_tree(git_repository* repo, BatchStore& store, const git_tree* base, std::string_view path,
                     const git_oid& blob) {
    struct Entry {
        std::string name;
        unsigned mode;
        git_oid id;
    };
    std::vector<Entry> entries;
    const std::size_t count = base ? git_tree_entrycount(base) : 0;
    entries.reserve(count + 1);
    for (std::size_t i = 0; i < count; ++i) {
        const git_tree_entry* e = git_tree_entry_byindex(base, i);
        entries.push_back({git_tree_entry_name(e), unsigned(git_tree_entry_filemode(e)), *git_tree_entry_id(e)});
    }
    const std::size_t slash = path.find('/');
    const std::string name(path.substr(0, slash));
    auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.name == name; });
    Entry updated{name, unsigned(GIT_FILEMODE_BLOB), blob};
    if (slash != std::string_view::npos) {
        TreePtr sub;
        if (it != entries.end() && it->mode == unsigned(GIT_FILEMODE_TREE)) {
            git_tree* raw = nullptr;
            check(git_tree_lookup(&raw, repo, &it->id), "reading the tree " + name);
            sub.reset(raw);
        }
        updated.mode = unsigned(GIT_FILEMODE_TREE);
        updated.id = updated_tree(repo, store, sub.get(), path.substr(slash + 1), blob);
    }
    if (it != entries.end()) *it = updated;
    else entries.push_back(updated);
    // Git's order: names compared as if a tree's name ended in '/'.
    const auto key = [](const Entry& e) { return e.mode == unsigned(GIT_FILEMODE_TREE) ? e.name + "/" : e.name; };
    std::sort(entries.begin(), entries.end(), [&](const Entry& a, const Entry& b) { return key(a) < key(b); });
    std::string bytes;
    for (const Entry& e : entries) {
        char mode[16];
        std::snprintf(mode, sizeof mode, "%o ", e.mode);
        bytes += mode;
        bytes += e.name;
        bytes += '\0';
        bytes.append(reinterpret_cast<const char*>(e.id.id), GIT_OID_RAWSZ);
    }
    return store.put(GIT_OBJECT_TREE, bytes);
}

// A signature line as git writes it: "author Name <email> 1700000000 +0100".
std::string signature_line(const char* header, const git_signature& sig) {
    int offset = sig.when.offset;
    const char sign = (offset < 0 || sig.when.sign == '-') ? '-' : '+';
    if (offset < 0) offset = -offset;
    char when[64];
    std::snprintf(when, sizeof when, "> %lld %c%02d%02d\n", static_cast<long long>(sig.when.time), sign, offset / 60,
                  offset % 60);
    return std::string(header) + " " + sig.name + " <" + sig.email + when;
}

struct GitRepository::Impl {
    RepositoryPtr repo;
    mutable OdbPtr odb;  // opened on first use by check_commit()
    struct BatchStore* batch = nullptr;  // owned by the object database once added (begin_batch)

    CommitPtr lookup_commit(const std::string& id) const {
        const git_oid oid = parse_oid(id, "looking up commit");
        git_commit* commit = nullptr;
        const int rc = git_commit_lookup(&commit, repo.get(), &oid);
        if (rc == GIT_ENOTFOUND)
            throw Error(ErrorKind::NotFound, "commit " + id + " is not in the repository " + work_dir());
        check(rc, "looking up commit " + id);
        return CommitPtr(commit);
    }

    TreePtr tree_of(const git_commit* commit, const std::string& id) const {
        git_tree* tree = nullptr;
        check(git_commit_tree(&tree, commit), "reading the tree of commit " + id);
        return TreePtr(tree);
    }

    std::string work_dir() const {
        const char* wd = git_repository_workdir(repo.get());
        return wd ? wd : git_repository_path(repo.get());
    }
};

GitRepository::GitRepository() : impl_(std::make_unique<Impl>()) {}
GitRepository::~GitRepository() = default;
GitRepository::GitRepository(GitRepository&&) noexcept = default;
GitRepository& GitRepository::operator=(GitRepository&&) noexcept = default;

GitRepository GitRepository::init(const fs::path& dir, const std::string& initial_branch) {
    ensure_libgit2_initialised();
    git_repository_init_options options;
    check(git_repository_init_options_init(&options, GIT_REPOSITORY_INIT_OPTIONS_VERSION), "preparing git init");
    options.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_REINIT;
    options.initial_head = initial_branch.c_str();
    git_repository* repo = nullptr;
    check(git_repository_init_ext(&repo, dir.c_str(), &options), "creating a git repository in " + dir.string());
    GitRepository result;
    result.impl_->repo.reset(repo);
    return result;
}

GitRepository GitRepository::open(const fs::path& dir) {
    ensure_libgit2_initialised();
    git_repository* repo = nullptr;
    check(git_repository_open_ext(&repo, dir.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr),
          "opening the git repository in " + dir.string());
    GitRepository result;
    result.impl_->repo.reset(repo);
    return result;
}

fs::path GitRepository::work_dir() const { return impl_->work_dir(); }
fs::path GitRepository::git_dir() const { return git_repository_path(impl_->repo.get()); }

std::string GitRepository::write_blob(std::string_view bytes) {
    git_oid oid;
    check(git_blob_create_from_buffer(&oid, impl_->repo.get(), bytes.data(), bytes.size()), "writing a blob");
    return to_hex(oid);
}

std::string GitRepository::hash_blob(std::string_view bytes) const {
    git_oid oid;
    check(git_odb_hash(&oid, bytes.data(), bytes.size(), GIT_OBJECT_BLOB), "hashing a blob");
    return to_hex(oid);
}

bool GitRepository::has_object(const std::string& id) const {
    git_oid oid;
    if (id.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, id.c_str()) < 0) return false;
    git_odb* raw = nullptr;
    check(git_repository_odb(&raw, impl_->repo.get()), "opening the object database");
    OdbPtr odb(raw);
    return git_odb_exists(odb.get(), &oid) == 1;
}

bool GitRepository::has_commit(const std::string& id) const {
    git_oid oid;
    if (id.size() != GIT_OID_HEXSZ || git_oid_fromstr(&oid, id.c_str()) < 0) return false;
    git_commit* commit = nullptr;
    const int rc = git_commit_lookup(&commit, impl_->repo.get(), &oid);
    if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC) return false;
    check(rc, "looking up commit " + id);
    git_commit_free(commit);
    return true;
}

std::string GitRepository::write_tree(const std::string& base_commit,
                                      const std::vector<std::pair<std::string, std::string>>& files) {
    git_repository* repo = impl_->repo.get();
    TreePtr base;
    if (base_commit.empty()) {
        git_treebuilder* raw = nullptr;
        check(git_treebuilder_new(&raw, repo, nullptr), "creating an empty tree");
        TreeBuilderPtr builder(raw);
        git_oid empty;
        check(git_treebuilder_write(&empty, builder.get()), "writing an empty tree");
        git_tree* tree = nullptr;
        check(git_tree_lookup(&tree, repo, &empty), "reading the empty tree");
        base.reset(tree);
    } else {
        const CommitPtr commit = impl_->lookup_commit(base_commit);
        base = impl_->tree_of(commit.get(), base_commit);
    }
    for (const auto& file : files) check_tree_path(file.first);  // before anything is written
    if (impl_->batch) {
        TreePtr current = std::move(base);
        git_oid tree_id{};
        for (std::size_t i = 0; i < files.size(); ++i) {
            const git_oid blob = impl_->batch->put(GIT_OBJECT_BLOB, files[i].second);
            tree_id = updated_tree(repo, *impl_->batch, current.get(), files[i].first, blob);
            if (i + 1 < files.size()) {
                git_tree* raw = nullptr;
                check(git_tree_lookup(&raw, repo, &tree_id), "reading a tree being written");
                current.reset(raw);
            }
        }
        if (files.empty()) tree_id = *git_tree_id(current.get());
        return to_hex(tree_id);
    }
    std::vector<git_tree_update> updates(files.size());
    for (std::size_t i = 0; i < files.size(); ++i) {
        const auto& [path, content] = files[i];
        check(git_blob_create_from_buffer(&updates[i].id, repo, content.data(), content.size()),
              "writing the blob of " + path);
        updates[i].action = GIT_TREE_UPDATE_UPSERT;
        updates[i].filemode = GIT_FILEMODE_BLOB;
        updates[i].path = path.c_str();
    }
    git_oid tree_id;
    check(git_tree_create_updated(&tree_id, repo, base.get(), updates.size(), updates.data()),
          "writing a tree based on " + (base_commit.empty() ? std::string("an empty tree") : base_commit));
    return to_hex(tree_id);
}

std::string GitRepository::write_commit(const std::string& tree_id, const std::vector<std::string>& parents,
                                        const std::string& message) {
    git_repository* repo = impl_->repo.get();
    git_signature* raw_signature = nullptr;
    check(git_signature_now(&raw_signature, "AutoKernel Workbench", "workbench@autokernel.invalid"),
          "creating the commit signature");
    SignaturePtr signature(raw_signature);
    // The tree and parents are checked by their headers, not parsed: a lookup would parse each new
    // tree and commit into libgit2's object cache, which holds them past the import's chunk (issue 13).
    if (!impl_->odb) {
        git_odb* odb = nullptr;
        check(git_repository_odb(&odb, repo), "opening the object database");
        impl_->odb.reset(odb);
    }
    const auto require = [&](const git_oid& oid, git_object_t want, const std::string& what) {
        std::size_t size = 0;
        git_object_t type = GIT_OBJECT_INVALID;
        const int rc = git_odb_read_header(&size, &type, impl_->odb.get(), &oid);
        if (rc == GIT_ENOTFOUND || (rc == 0 && type != want))
            throw Error(ErrorKind::NotFound, what + " is not in the repository " + impl_->work_dir());
        check(rc, "looking up " + what);
    };
    const git_oid tree_oid = parse_oid(tree_id, "writing a commit");
    if (!impl_->batch || !impl_->batch->objects.count(tree_oid)) require(tree_oid, GIT_OBJECT_TREE, "tree " + tree_id);
    std::vector<git_oid> parent_ids;
    parent_ids.reserve(parents.size());
    for (const std::string& parent : parents) {
        parent_ids.push_back(parse_oid(parent, "looking up commit"));
        require(parent_ids.back(), GIT_OBJECT_COMMIT, "commit " + parent);
    }
    if (impl_->batch) {
        std::string text = "tree " + tree_id + "\n";
        for (const git_oid& oid : parent_ids) text += "parent " + to_hex(oid) + "\n";
        text += signature_line("author", *signature) + signature_line("committer", *signature) + "\n" + message;
        return to_hex(impl_->batch->put(GIT_OBJECT_COMMIT, text));
    }
    std::vector<const git_oid*> parent_pointers;
    for (const git_oid& oid : parent_ids) parent_pointers.push_back(&oid);
    git_oid commit_id;
    check(git_commit_create_from_ids(&commit_id, repo, nullptr, signature.get(), signature.get(), nullptr,
                                     message.c_str(), &tree_oid, parent_pointers.size(), parent_pointers.data()),
          "writing a commit");
    return to_hex(commit_id);
}

std::string GitRepository::commit_message(const std::string& commit) const {
    const CommitPtr c = impl_->lookup_commit(commit);
    const char* message = git_commit_message_raw(c.get());
    return message ? message : "";
}

std::vector<std::string> GitRepository::commit_parents(const std::string& commit) const {
    const CommitPtr c = impl_->lookup_commit(commit);
    std::vector<std::string> parents;
    for (unsigned i = 0; i < git_commit_parentcount(c.get()); ++i)
        parents.push_back(to_hex(*git_commit_parent_id(c.get(), i)));
    return parents;
}

std::int64_t GitRepository::commit_time(const std::string& commit) const {
    const CommitPtr c = impl_->lookup_commit(commit);
    return static_cast<std::int64_t>(git_commit_time(c.get()));
}

std::optional<std::string> GitRepository::blob_id_at(const std::string& commit, const std::string& path) const {
    const CommitPtr c = impl_->lookup_commit(commit);
    const TreePtr tree = impl_->tree_of(c.get(), commit);
    git_tree_entry* raw = nullptr;
    const int rc = git_tree_entry_bypath(&raw, tree.get(), path.c_str());
    if (rc == GIT_ENOTFOUND) return std::nullopt;
    check(rc, "looking up " + path + " in commit " + commit);
    TreeEntryPtr entry(raw);
    if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) return std::nullopt;
    return to_hex(*git_tree_entry_id(entry.get()));
}

GitRepository::CommitCheck GitRepository::check_commit(const std::string& commit, const std::string& path) const {
    // Read raw from the object database: a commit's text is "tree <id>\n" ... "\n\n<message>", and
    // skipping libgit2's commit parsing and cache makes checking thousands of commits cheaper.
    const git_oid oid = parse_oid(commit, "checking commit");
    if (!impl_->odb) {
        git_odb* odb = nullptr;
        check(git_repository_odb(&odb, impl_->repo.get()), "opening the object database");
        impl_->odb.reset(odb);
    }
    git_odb_object* raw_object = nullptr;
    const int rc_read = git_odb_read(&raw_object, impl_->odb.get(), &oid);
    if (rc_read == GIT_ENOTFOUND)
        throw Error(ErrorKind::NotFound, "commit " + commit + " is not in the repository " + impl_->work_dir());
    check(rc_read, "reading commit " + commit);
    const std::unique_ptr<git_odb_object, void (*)(git_odb_object*)> object(raw_object, git_odb_object_free);
    if (git_odb_object_type(object.get()) != GIT_OBJECT_COMMIT)
        throw Error(ErrorKind::Git, "object " + commit + " is not a commit");
    const std::string_view text(static_cast<const char*>(git_odb_object_data(object.get())),
                                git_odb_object_size(object.get()));
    const std::size_t body = text.find("\n\n");
    if (text.substr(0, 5) != "tree " || text.size() < 45 || body == std::string_view::npos)
        throw Error(ErrorKind::Git, "commit " + commit + " is malformed");
    CommitCheck result;
    result.message = std::string(text.substr(body + 2));
    git_oid tree_id;
    if (git_oid_fromstrn(&tree_id, text.data() + 5, GIT_OID_HEXSZ) < 0)
        throw Error(ErrorKind::Git, "commit " + commit + " names no valid tree");
    git_tree* raw_tree = nullptr;
    if (git_tree_lookup(&raw_tree, impl_->repo.get(), &tree_id) < 0) {  // not NotFound: the commit exists
        const git_error* e = git_error_last();
        throw Error(ErrorKind::Git, "its tree " + to_hex(tree_id) + " is missing or unreadable" +
                                        (e && e->message ? std::string(": ") + e->message : std::string()));
    }
    const TreePtr tree(raw_tree);
    git_tree_entry* raw = nullptr;
    const int rc = git_tree_entry_bypath(&raw, tree.get(), path.c_str());
    if (rc == GIT_ENOTFOUND) return result;
    check(rc, "looking up " + path + " in commit " + commit);
    TreeEntryPtr entry(raw);
    if (git_tree_entry_type(entry.get()) != GIT_OBJECT_BLOB) return result;
    result.blob = to_hex(*git_tree_entry_id(entry.get()));
    result.blob_present = git_odb_exists(impl_->odb.get(), git_tree_entry_id(entry.get())) == 1;
    return result;
}

std::optional<std::string> GitRepository::file_at(const std::string& commit, const std::string& path) const {
    const auto id = blob_id_at(commit, path);
    if (!id) return std::nullopt;
    const git_oid oid = parse_oid(*id, "reading " + path);
    git_blob* raw = nullptr;
    check(git_blob_lookup(&raw, impl_->repo.get(), &oid), "reading " + path + " in commit " + commit);
    BlobPtr blob(raw);
    return std::string(static_cast<const char*>(git_blob_rawcontent(blob.get())),
                       static_cast<std::size_t>(git_blob_rawsize(blob.get())));
}

std::vector<std::string> GitRepository::changed_files(const std::string& commit) const {
    const CommitPtr c = impl_->lookup_commit(commit);
    const TreePtr tree = impl_->tree_of(c.get(), commit);
    TreePtr parent_tree;
    if (git_commit_parentcount(c.get()) > 0) {
        git_commit* raw_parent = nullptr;
        check(git_commit_parent(&raw_parent, c.get(), 0), "reading the parent of commit " + commit);
        CommitPtr parent(raw_parent);
        parent_tree = impl_->tree_of(parent.get(), to_hex(*git_commit_id(parent.get())));
    }
    git_diff* raw_diff = nullptr;
    check(git_diff_tree_to_tree(&raw_diff, impl_->repo.get(), parent_tree.get(), tree.get(), nullptr),
          "comparing commit " + commit + " with its parent");
    DiffPtr diff(raw_diff);
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < git_diff_num_deltas(diff.get()); ++i) {
        const git_diff_delta* delta = git_diff_get_delta(diff.get(), i);
        const git_diff_file& file = delta->status == GIT_DELTA_DELETED ? delta->old_file : delta->new_file;
        paths.emplace_back(file.path);
    }
    return paths;
}

std::vector<std::string> GitRepository::all_commits() const {
    git_repository* repo = impl_->repo.get();
    git_revwalk* raw = nullptr;
    check(git_revwalk_new(&raw, repo), "walking the history");
    RevwalkPtr walk(raw);
    check(git_revwalk_sorting(walk.get(), GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME | GIT_SORT_REVERSE),
          "walking the history");
    bool pushed = false;
    // Refs that do not point at commits (tags of blobs, say) are skipped.
    std::vector<git_oid> starts;
    {
        git_reference_iterator* raw_it = nullptr;
        check(git_reference_iterator_new(&raw_it, repo), "listing refs");
        IteratorPtr it(raw_it);
        git_reference* raw_ref = nullptr;
        while (git_reference_next(&raw_ref, it.get()) == 0) {
            ReferencePtr ref(raw_ref);
            git_oid oid;
            if (git_reference_name_to_id(&oid, repo, git_reference_name(ref.get())) == 0) starts.push_back(oid);
        }
    }
    git_oid head;
    if (git_reference_name_to_id(&head, repo, "HEAD") == 0) starts.push_back(head);
    // Commits that `git reset` dropped from the branch are still in HEAD's reflog.
    git_reflog* raw_log = nullptr;
    if (git_reflog_read(&raw_log, repo, "HEAD") == 0) {
        ReflogPtr log(raw_log);
        for (std::size_t i = 0; i < git_reflog_entrycount(log.get()); ++i) {
            const git_reflog_entry* entry = git_reflog_entry_byindex(log.get(), i);
            const git_oid* id = git_reflog_entry_id_new(entry);
            if (id && !git_oid_is_zero(id)) starts.push_back(*id);
        }
    }
    for (const git_oid& oid : starts) {
        git_commit* commit = nullptr;
        if (git_commit_lookup(&commit, repo, &oid) != 0) continue;
        git_commit_free(commit);
        if (git_revwalk_push(walk.get(), &oid) == 0) pushed = true;
    }
    std::vector<std::string> commits;
    if (!pushed) return commits;
    git_oid oid;
    int rc = 0;
    while ((rc = git_revwalk_next(&oid, walk.get())) == 0) commits.push_back(to_hex(oid));
    if (rc != GIT_ITEROVER) check(rc, "walking the history");
    return commits;
}

std::optional<std::string> GitRepository::read_ref(const std::string& name) const {
    git_oid oid;
    const int rc = git_reference_name_to_id(&oid, impl_->repo.get(), name.c_str());
    if (rc == GIT_ENOTFOUND) return std::nullopt;
    check(rc, "reading ref " + name);
    return to_hex(oid);
}

void GitRepository::set_ref(const std::string& name, const std::string& commit, bool force,
                            const std::string& log_message) {
    const git_oid oid = parse_oid(commit, "setting ref " + name);
    git_reference* raw = nullptr;
    const int rc = git_reference_create(&raw, impl_->repo.get(), name.c_str(), &oid, force ? 1 : 0,
                                        log_message.c_str());
    if (rc == GIT_EEXISTS)
        throw Error(ErrorKind::Git, "ref " + name + " already exists (another writer?); not overwritten");
    check(rc, "setting ref " + name + " to " + commit);
    git_reference_free(raw);
}

void GitRepository::for_each_ref(
    const std::string& prefix,
    const std::function<void(const std::string& name, const std::string& commit)>& visit) const {
    git_repository* repo = impl_->repo.get();
    git_reference_iterator* raw_it = nullptr;
    const std::string glob = prefix + "*";
    check(git_reference_iterator_glob_new(&raw_it, repo, glob.c_str()), "listing refs " + glob);
    IteratorPtr it(raw_it);
    git_reference* raw_ref = nullptr;
    int rc = 0;
    while ((rc = git_reference_next(&raw_ref, it.get())) == 0) {
        ReferencePtr ref(raw_ref);
        const std::string name = git_reference_name(ref.get());
        if (name.compare(0, prefix.size(), prefix) != 0) continue;
        if (const git_oid* target = git_reference_target(ref.get())) {
            visit(name, to_hex(*target));
        } else {
            git_oid oid;
            check(git_reference_name_to_id(&oid, repo, name.c_str()), "resolving ref " + name);
            visit(name, to_hex(oid));
        }
    }
    if (rc != GIT_ITEROVER) check(rc, "listing refs " + glob);
}

void GitRepository::begin_batch() {
    if (impl_->batch) return;
    // libgit2 caches up to 256 MiB of parsed objects per process by default; a bulk import reads each
    // object about once, so a small cache keeps its memory flat.
    git_libgit2_opts(GIT_OPT_SET_CACHE_MAX_SIZE, static_cast<ssize_t>(16) << 20);
    // Pack files stay mapped (up to 8 GiB by default); each chunk's pack is touched once, when indexed.
    git_libgit2_opts(GIT_OPT_SET_MWINDOW_MAPPED_LIMIT, static_cast<std::size_t>(64) << 20);
    git_odb* raw = nullptr;
    check(git_repository_odb(&raw, impl_->repo.get()), "opening the object database");
    OdbPtr odb(raw);
    BatchStore* store = BatchStore::create();
    // Highest priority: new objects go to memory; reads fall through to the files.
    const int rc = git_odb_add_backend(odb.get(), &store->parent, 1000);
    if (rc < 0) delete store;
    check(rc, "adding the in-memory object store");
    impl_->batch = store;
}

void GitRepository::flush_batch() {
    BatchStore* store = impl_->batch;
    if (!store || store->order.empty()) return;
    git_odb* raw = nullptr;
    check(git_repository_odb(&raw, impl_->repo.get()), "opening the object database");
    OdbPtr odb(raw);
    git_odb_writepack* writer = nullptr;
    check(git_odb_write_pack(&writer, odb.get(), nullptr, nullptr), "starting a pack file");
    const std::unique_ptr<git_odb_writepack, void (*)(git_odb_writepack*)> writing(
        writer, [](git_odb_writepack* w) { w->free(w); });
    git_indexer_progress stats{};
    store->pack([&](std::string_view piece) {
        check(writer->append(writer, piece.data(), piece.size(), &stats), "writing a pack file");
    });
    check(writer->commit(writer, &stats), "writing a pack file's index");
    check(git_odb_refresh(odb.get()), "reading the new pack file");
    store->objects.clear();
    store->order.clear();
}

void GitRepository::pack_refs() {
    git_refdb* raw = nullptr;
    check(git_repository_refdb(&raw, impl_->repo.get()), "opening the ref database");
    RefdbPtr refdb(raw);
    check(git_refdb_compress(refdb.get()), "packing refs");
}

void GitRepository::reset_index_to(const std::string& commit) {
    const CommitPtr c = impl_->lookup_commit(commit);
    const TreePtr tree = impl_->tree_of(c.get(), commit);
    git_index* raw = nullptr;
    check(git_repository_index(&raw, impl_->repo.get()), "opening the index");
    IndexPtr index(raw);
    check(git_index_read_tree(index.get(), tree.get()), "reading commit " + commit + " into the index");
    check(git_index_write(index.get()), "writing the index");
}

}  // namespace ak
