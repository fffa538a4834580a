#include "session/git_repository.h"

#include "test_support.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

using namespace ak;
using ak::testing::TempDir;

TEST(GitRepository, WritesTreeWithOneFileReplacedAndReadsItBack) {
    TempDir dir;
    GitRepository repo = GitRepository::init(dir.path(), "main");
    const std::string tree0 = repo.write_tree("", {{"session.json", "{}\n"}, {"kernels/a.cu", "a0"}});
    const std::string c0 = repo.write_commit(tree0, {}, "root\n");
    const std::string tree1 = repo.write_tree(c0, {{"kernels/a.cu", "a1"}});
    const std::string c1 = repo.write_commit(tree1, {c0}, "second\n\nbody\n");

    EXPECT_EQ(repo.file_at(c1, "kernels/a.cu"), "a1");
    EXPECT_EQ(repo.file_at(c0, "kernels/a.cu"), "a0");
    EXPECT_EQ(repo.file_at(c1, "session.json"), "{}\n") << "untouched files carry over from the parent tree";
    EXPECT_FALSE(repo.file_at(c1, "kernels/b.cu").has_value());
    EXPECT_EQ(repo.commit_message(c1), "second\n\nbody\n");
    EXPECT_EQ(repo.commit_parents(c1), std::vector<std::string>{c0});
    EXPECT_TRUE(repo.commit_parents(c0).empty());
    EXPECT_EQ(repo.changed_files(c1), std::vector<std::string>{"kernels/a.cu"});
    EXPECT_EQ(repo.blob_id_at(c1, "kernels/a.cu"), repo.hash_blob("a1"));
    EXPECT_TRUE(repo.has_object(repo.hash_blob("a0")));
    EXPECT_FALSE(repo.has_object(repo.hash_blob("never written")));
    EXPECT_TRUE(repo.has_commit(c1));
    EXPECT_FALSE(repo.has_commit(std::string(40, '1')));
    EXPECT_FALSE(repo.has_commit(tree1)) << "a tree is not a commit";
}

TEST(GitRepository, RefsAreCreatedReadAndListedUnderAPrefix) {
    TempDir dir;
    GitRepository repo = GitRepository::init(dir.path(), "main");
    const std::string c0 = repo.write_commit(repo.write_tree("", {{"f", "0"}}), {}, "c0\n");
    const std::string c1 = repo.write_commit(repo.write_tree(c0, {{"f", "1"}}), {c0}, "c1\n");
    EXPECT_FALSE(repo.read_ref("refs/heads/main").has_value());
    repo.set_ref("refs/heads/main", c0, false, "test");
    repo.set_ref("refs/autokernel/exp/0", c0, false, "test");
    repo.set_ref("refs/autokernel/exp/1", c1, false, "test");
    repo.set_ref("refs/autokernel/other", c1, false, "test");
    EXPECT_EQ(repo.read_ref("refs/heads/main"), c0);
    EXPECT_EQ(repo.read_ref("HEAD"), c0) << "HEAD is symbolic to the initial branch";

    std::map<std::string, std::string> listed;
    repo.for_each_ref("refs/autokernel/exp/", [&](const std::string& n, const std::string& c) { listed[n] = c; });
    EXPECT_EQ(listed, (std::map<std::string, std::string>{{"refs/autokernel/exp/0", c0}, {"refs/autokernel/exp/1", c1}}));

    try {
        repo.set_ref("refs/autokernel/exp/1", c0, false, "test");
        FAIL() << "an existing ref must not be overwritten without force";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("refs/autokernel/exp/1"), std::string::npos) << e.what();
    }
    repo.set_ref("refs/heads/main", c1, true, "test");
    EXPECT_EQ(repo.read_ref("refs/heads/main"), c1);

    repo.pack_refs();
    listed.clear();
    repo.for_each_ref("refs/autokernel/exp/", [&](const std::string& n, const std::string& c) { listed[n] = c; });
    EXPECT_EQ(listed.size(), 2u) << "packed refs are still listed";
    EXPECT_EQ(repo.read_ref("refs/autokernel/exp/1"), c1);
}

TEST(GitRepository, AllCommitsIncludesCommitsOnlyInHeadsReflog) {
    TempDir dir;
    GitRepository repo = GitRepository::init(dir.path(), "main");
    const std::string c0 = repo.write_commit(repo.write_tree("", {{"f", "0"}}), {}, "c0\n");
    const std::string c1 = repo.write_commit(repo.write_tree(c0, {{"f", "1"}}), {c0}, "c1\n");
    repo.set_ref("refs/heads/main", c0, false, "commit");
    repo.set_ref("refs/heads/main", c1, true, "commit");
    repo.set_ref("refs/heads/main", c0, true, "reset: moving to HEAD~1");  // like `git reset --hard HEAD~1`
    const auto commits = repo.all_commits();
    EXPECT_NE(std::find(commits.begin(), commits.end(), c1), commits.end()) << "c1 is only in the reflog";
    EXPECT_EQ(commits.front(), c0) << "oldest first";
}

TEST(GitRepository, MissingCommitIsNotFoundNamingIt) {
    TempDir dir;
    GitRepository repo = GitRepository::init(dir.path(), "main");
    const std::string missing(40, '7');
    for (auto read : {+[](GitRepository& r, const std::string& c) { (void)r.commit_message(c); },
                      +[](GitRepository& r, const std::string& c) { (void)r.file_at(c, "x"); }}) {
        try {
            read(repo, missing);
            FAIL();
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::NotFound);
            EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
        }
    }
}

TEST(GitRepository, OpeningAFolderWithoutRepositoryIsAnErrorNamingIt) {
    TempDir dir;
    try {
        GitRepository::open(dir.path());
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find(dir.path().string()), std::string::npos) << e.what();
    }
}

// A batch (begin_batch .. flush_batch) writes its objects without libgit2's object writer; its trees
// must be the ones libgit2 writes, and its commits must read back like any other (issue 13).
TEST(GitRepository, ABatchWritesTheSameTreesAsLibgit2AndCommitsThatReadBack) {
    TempDir plain_dir, batch_dir;
    GitRepository plain = GitRepository::init(plain_dir.path(), "main");
    GitRepository batch = GitRepository::init(batch_dir.path(), "main");
    const std::vector<std::pair<std::string, std::string>> root_files = {
        {"session.json", "{}\n"}, {"kernels/b.cu", "b0"}, {"kernels.txt", "a blob named like the folder"}};
    const std::string p0 = plain.write_commit(plain.write_tree("", root_files), {}, "root\n");
    const std::string b0 = batch.write_commit(batch.write_tree("", root_files), {}, "root\n");
    batch.begin_batch();
    std::string plain_tip = p0, batch_tip = b0;
    const std::vector<std::vector<std::pair<std::string, std::string>>> steps = {
        {{"kernels/a.cu", "a1"}},                       // a new entry sorted before an existing one
        {{"kernels/b.cu", "b1"}, {"kernels/c.cu", "c"}},  // two files in one tree
        {{"kernels/a.cu", "a1"}},                       // unchanged content: the same tree
        {{"deep/er/x.cu", "x"}, {"kernels-z", "z"}},    // new folders and a name after "kernels/"
    };
    for (const auto& files : steps) {
        const std::string plain_tree = plain.write_tree(plain_tip, files);
        const std::string batch_tree = batch.write_tree(batch_tip, files);
        EXPECT_EQ(batch_tree, plain_tree) << "batch trees must be byte-identical to libgit2's";
        const std::string message = "exp\n\nAutokernel-Experiment: 1\n";
        plain_tip = plain.write_commit(plain_tree, {plain_tip}, message);
        const std::string parent = batch_tip;
        batch_tip = batch.write_commit(batch_tree, {batch_tip}, message);
        EXPECT_EQ(batch.commit_message(batch_tip), message) << "readable before the flush";
        EXPECT_EQ(batch.commit_parents(batch_tip), std::vector<std::string>{parent});
    }
    EXPECT_THROW(batch.write_commit(std::string(40, '3'), {batch_tip}, "x\n"), Error) << "a missing tree";
    EXPECT_THROW(batch.write_commit(batch.write_tree(batch_tip, {}), {std::string(40, '4')}, "x\n"), Error)
        << "a missing parent";
    batch.flush_batch();
    GitRepository reopened = GitRepository::open(batch_dir.path());
    EXPECT_EQ(reopened.file_at(batch_tip, "deep/er/x.cu"), "x");
    EXPECT_EQ(reopened.file_at(batch_tip, "kernels/b.cu"), "b1");
    EXPECT_EQ(reopened.file_at(batch_tip, "kernels.txt"), "a blob named like the folder");
    EXPECT_EQ(reopened.commit_parents(batch_tip).size(), 1u);
    EXPECT_EQ(reopened.commit_message(batch_tip), "exp\n\nAutokernel-Experiment: 1\n");
    EXPECT_TRUE(reopened.has_commit(batch_tip));
}
