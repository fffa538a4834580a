# Summaries of profile.json files for the profiler GPU job (scripts/gpu-jobs/profiler.sh).
#   summarize.py table FILE...            one line per profile: kernels/iteration, kernel ms/iteration,
#                                         busy vs CUDA events, attribution, overhead
#   summarize.py names OUT.tsv FILE...    unique (kernel name, innermost op, op stack) with count and time
#   summarize.py top FILE [N]             the N longest kernels by total time, with op and module
#   summarize.py nvtx FILE                kernel count and time per (innermost) NVTX range
#   summarize.py overhead FILE...         per mode (the file name without its last -ROUND): median, min and
#                                         max over the files of the profiled and unprofiled iteration
import collections
import json
import sys


def load(path):
    with open(path) as f:
        p = json.load(f)
    s = p["strings"]
    ops = {}
    for o in p["ops"]:
        ops[o[0]] = {"name": s[o[1]], "stack": [s[i] for i in o[2]], "module": s[o[3]]}
    kernels = []
    for k in p["kernels"]:
        kernels.append({"name": s[k[0]], "start": k[1], "end": k[2], "op": ops.get(k[18]) if k[18] is not None else None,
                        "nvtx": s[k[19]], "iteration": k[21]})
    memory = [{"start": m[2], "end": m[3], "iteration": m[6]} for m in p["memory"]]
    return p, kernels, memory


def union_ms(spans):
    total, end = 0, None
    start = None
    for a, b in sorted(spans):
        if end is None or a > end:
            if end is not None:
                total += end - start
            start, end = a, b
        else:
            end = max(end, b)
    if end is not None:
        total += end - start
    return total / 1e6


def table(files):
    print("%-34s %8s %10s %10s %10s %7s %7s %17s" % ("profile", "kern/it", "kern ms/it", "busy ms/it", "event ms/it",
                                                       "attr %", "module%", "overhead ms (on/off)"))
    for f in files:
        try:
            p, kernels, memory = load(f)
        except Exception as e:  # keep going: one broken file must not hide the others
            print("%-34s UNREADABLE: %s" % (f.split("/")[-1], e))
            continue
        its = p["iterations"]
        n = max(1, len(its))
        ksum = sum(k["end"] - k["start"] for k in kernels) / 1e6
        attr = sum(k["end"] - k["start"] for k in kernels if k["op"]) / 1e6
        mod = sum(k["end"] - k["start"] for k in kernels if k["op"] and k["op"]["module"]) / 1e6
        busy = sum(union_ms([(k["start"], k["end"]) for k in kernels if k["iteration"] == it["index"]] +
                            [(m["start"], m["end"]) for m in memory if m["iteration"] == it["index"]]) for it in its)
        ev = sum(it.get("event_ms", 0) for it in its)
        ov = p.get("overhead") or {}
        print("%-34s %8d %10.3f %10.3f %10.3f %7.1f %7.1f %8.3f/%-8.3f" % (
            f.split("/")[-1], len(kernels) // n, ksum / n, busy / n, ev / n, 100 * attr / max(ksum, 1e-12),
            100 * mod / max(ksum, 1e-12), ov.get("profiled_iteration_ms", 0), ov.get("unprofiled_iteration_ms", 0)))
        for w in p.get("warnings", []):
            print("    warning:", w)


def names(out, files):
    rows = collections.OrderedDict()
    for f in files:
        try:
            p, kernels, _ = load(f)
        except Exception as e:
            print("skipping", f, e)
            continue
        src = f.split("/")[-1].replace(".json", "")
        for k in kernels:
            op = k["op"]
            key = (k["name"], op["name"] if op else "", " > ".join(op["stack"]) if op else "")
            r = rows.setdefault(key, {"count": 0, "ns": 0, "module": op["module"] if op else "", "nvtx": k["nvtx"], "src": src})
            r["count"] += 1
            r["ns"] += k["end"] - k["start"]
    with open(out, "w") as o:
        # The first two columns as in tests/fixtures/profile/kernel_names.tsv ("-": not attributed).
        o.write("kernel_name\top_stack\top\tmodule_example\tnvtx_example\tprofile\tcount\ttotal_us\n")
        for (name, op, stack), r in rows.items():
            o.write("\t".join([name, stack or "-", op or "-", r["module"], r["nvtx"], r["src"], str(r["count"]),
                                "%.1f" % (r["ns"] / 1e3)]) + "\n")
    print("%d unique (kernel, op, stack) rows in %s" % (len(rows), out))


def top(f, n):
    p, kernels, _ = load(f)
    agg = collections.defaultdict(lambda: [0, 0, ""])
    for k in kernels:
        key = (k["name"][:90], k["op"]["name"] if k["op"] else "-", k["op"]["module"] if k["op"] else k["nvtx"])
        agg[key][0] += 1
        agg[key][1] += k["end"] - k["start"]
    total = sum(v[1] for v in agg.values()) or 1
    for (name, op, mod), (c, ns, _) in sorted(agg.items(), key=lambda x: -x[1][1])[:n]:
        print("  %5.1f%% %6d %10.1f us  %-28s %-22s %s" % (100 * ns / total, c, ns / 1e3, op[:28], mod[:22], name))


def nvtx(f):
    p, kernels, memory = load(f)
    agg = collections.defaultdict(lambda: [0, 0])
    for k in kernels:
        agg[k["nvtx"] or "(no range)"][0] += 1
        agg[k["nvtx"] or "(no range)"][1] += k["end"] - k["start"]
    total = sum(v[1] for v in agg.values()) or 1
    busy = union_ms([(k["start"], k["end"]) for k in kernels] + [(m["start"], m["end"]) for m in memory])
    print("%s: %d kernels, kernel sum %.3f ms, GPU busy %.3f ms (kernels, memcpy, memset), %d memory records" % (
        f.split("/")[-1], len(kernels), total / 1e6, busy, len(memory)))
    for name, (c, ns) in sorted(agg.items(), key=lambda x: -x[1][1]):
        print("  %-14s %6d kernels %10.3f ms %6.1f %%" % (name, c, ns / 1e6, 100 * ns / total))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2) if n else float("nan")


def overhead(files):
    modes = collections.OrderedDict()
    for f in files:
        try:
            p = json.load(open(f))
        except Exception as e:
            print("%s UNREADABLE: %s" % (f.split("/")[-1], e))
            continue
        mode = f.split("/")[-1].rsplit(".", 1)[0].rsplit("-", 1)[0]
        ov = p.get("overhead") or {}
        walls = [it["wall_ms"] for it in p["iterations"]]
        modes.setdefault(mode, []).append((ov.get("profiled_iteration_ms", 0), ov.get("unprofiled_iteration_ms", 0),
                                           min(walls), max(walls)))
    print("%-26s %5s %28s %28s %9s" % ("mode", "runs", "profiled ms: median [min-max]", "unprofiled ms: median [min-max]",
                                        "ratio"))
    for mode, runs in modes.items():
        on = [r[0] for r in runs]
        off = [r[1] for r in runs]
        print("%-26s %5d %12.3f [%6.3f-%6.3f] %12.3f [%6.3f-%6.3f] %9.2f" % (
            mode, len(runs), median(on), min(on), max(on), median(off), min(off), max(off), median(on) / max(median(off), 1e-9)))
        print("%-26s       within each run, profiled iterations: %s" % ("", ", ".join(
            "%.2f-%.2f" % (r[2], r[3]) for r in runs)))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "table":
        table(sys.argv[2:])
    elif cmd == "names":
        names(sys.argv[2], sys.argv[3:])
    elif cmd == "top":
        top(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 12)
    elif cmd == "nvtx":
        nvtx(sys.argv[2])
    elif cmd == "overhead":
        overhead(sys.argv[2:])
    else:
        sys.exit("unknown command %s" % cmd)
