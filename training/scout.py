"""Train several classifier variants at once on a lent GPU machine, sharing one load of the sheets.

    python training/scout.py --data DIR --sheets 640 --root /tmp/scout --mine 0:320 --mine 320:320 \\
        --variant 'a=--max-sheets 640 --extra 4000 ...' --variant 'b=--max-sheets 320 ...'

For iterating, never for the committed model: `make train` runs classifier.py on the CPU, one
process, and that run is the one that reproduces the committed bytes. Here the sheets are
decoded once by --loaders processes, then each variant runs classifier.py's main in a process of
its own (forked, so the decoded sheets are shared, not copied), with `--device cuda --workers N`
added: one process cannot draw crops fast enough to keep a GPU busy. Variant NAME writes into
ROOT/NAME (the detector's JSON is copied there first, as classifier.py reads it from --out and
--work); a proposal cache found in --cache is copied into each work folder, so the detector's
proposals need not be mined again. --mine FIRST:N fills that cache first, in the file
classifier.py looks for, the span's sheets shared out among --loaders processes, so that the
variants do not each mine the same sheets (on the lent machine 16 processes mined 320 sheets in
43 s). The weights differ from a CPU run's (other batches, other arithmetic): compare variants
with each other, then run the chosen one with make train.
"""

import argparse
import glob
import json
import multiprocessing as mp
import os
import shlex
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import classifier  # noqa: E402
import data  # noqa: E402
import export  # noqa: E402


def load_span(args):
    data_dir, catalog, skip, limit = args
    return data.load_sheets(data_dir, data.load_classes(catalog), limit, skip)


# The decoded sheets, set before the mining pool forks so its processes share them (scout
# only: a Pool's arguments are pickled, and the sheets are gigabytes).
FORKED_SHEETS = []


def mine_part(args):
    """Proposals on the sheets FORKED_SHEETS[i] for i in indices, as classifier.mine finds them."""
    detector, meta, indices = args
    sess = classifier.detector_session(detector)
    return [classifier.propose(sess, FORKED_SHEETS[i].gray, meta, classifier.PROPOSAL_THRESHOLD) for i in indices]


def run_variant(name, argv, log):
    sys.argv = ["classifier.py"] + argv
    t0 = time.time()
    try:
        classifier.main()
        log(f"{name}: done in {time.time() - t0:.0f} s")
    except BaseException as e:  # a variant's failure is reported, the others go on
        log(f"{name}: failed after {time.time() - t0:.0f} s: {e!r}")
        raise


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--data", required=True)
    p.add_argument("--catalog", default="internal/catalog/symbols.json")
    p.add_argument("--meta", default=os.path.join("internal/raster/model", export.META_FILE),
                   help="the detector's JSON each variant starts from")
    p.add_argument("--sheets", type=int, required=True, help="how many sheets of --data to decode (the most any variant reads)")
    p.add_argument("--loaders", type=int, default=os.cpu_count() or 2)
    p.add_argument("--root", required=True)
    p.add_argument("--cache", default="", help="folder of proposals-*.npz to copy into each variant's work folder")
    p.add_argument("--device", default="cuda")
    p.add_argument("--workers", type=int, default=4, help="batch-drawing processes per variant")
    p.add_argument("--variant", action="append", required=True, help="NAME=classifier.py arguments")
    p.add_argument("--detector", default="internal/raster/model/detector-int8.onnx",
                   help="the proposal network --mine runs (the variants' --detector default)")
    p.add_argument("--mine", action="append", default=[], metavar="FIRST:N",
                   help="mine the proposals on sheets FIRST..FIRST+N of --data with --loaders processes into "
                        "--cache (ROOT/cache if unset) first, as classifier.py would cache them: a variant "
                        "reading that span then skips its own mining, one process on two threads")
    a = p.parse_args()

    os.makedirs(a.root, exist_ok=True)

    def log(msg):
        line = f"{time.strftime('%H:%M:%S')} {msg}"
        print(line, flush=True)
        with open(os.path.join(a.root, "scout-log.txt"), "a") as f:
            f.write(line + "\n")

    t0 = time.time()
    chunk = max(1, -(-a.sheets // a.loaders))
    spans = [(a.data, a.catalog, s, min(chunk, a.sheets - s)) for s in range(0, a.sheets, chunk)]
    with mp.get_context("fork").Pool(len(spans)) as pool:
        sheets = [s for part in pool.map(load_span, spans) for s in part]
    log(f"decoded {len(sheets)} sheets in {time.time() - t0:.0f} s with {len(spans)} processes")

    def preloaded(data_dir, classes, limit=0, skip=0):
        end = skip + limit if limit else len(sheets)
        if end > len(sheets):
            raise SystemExit(f"scout: a variant reads sheets up to {end}; --sheets decoded {len(sheets)}")
        return sheets[skip:end]
    data.load_sheets = preloaded  # the forked variants read the decoded sheets

    if a.mine:
        a.cache = a.cache or os.path.join(a.root, "cache")
        with open(a.meta) as f:
            meta = json.load(f)
        FORKED_SHEETS[:] = sheets
        for span in a.mine:
            t1 = time.time()
            first, n = (int(v) for v in span.split(":"))
            if first + n > len(sheets):
                raise SystemExit(f"scout: --mine {span} reaches past the {len(sheets)} decoded sheets")
            parts = [(a.detector, meta, list(range(first + i, first + n, a.loaders))) for i in range(a.loaders)]
            with mp.get_context("fork").Pool(a.loaders) as pool:
                found = pool.map(mine_part, parts)
            out = [None] * n
            for (_, _, idx), props in zip(parts, found):
                for i, pr in zip(idx, props):
                    out[i - first] = pr
            classifier.save_cached(classifier.cache_path(a.detector, a.cache, "proposals",
                                                         f"{classifier.PROPOSAL_THRESHOLD}", first, n), out)
            log(f"mined proposals on sheets {first}..{first + n} in {time.time() - t1:.0f} s with {a.loaders} processes")

    procs = []
    for v in a.variant:
        name, _, args = v.partition("=")
        out = os.path.join(a.root, name)
        work = os.path.join(out, "work")
        os.makedirs(work, exist_ok=True)
        shutil.copy(a.meta, os.path.join(out, export.META_FILE))
        if a.cache:
            for f in glob.glob(os.path.join(a.cache, "*.npz")):
                shutil.copy(f, work)
        argv = ["--data", a.data, "--catalog", a.catalog, "--out", out, "--work", work,
                "--device", a.device, "--workers", str(a.workers)] + shlex.split(args)
        log(f"{name}: classifier.py {' '.join(argv)}")
        pr = mp.get_context("fork").Process(target=run_variant, args=(name, argv, log))
        pr.start()
        procs.append((name, pr))
    failed = 0
    for name, pr in procs:
        pr.join()
        failed += pr.exitcode != 0
    log(f"all variants ended in {time.time() - t0:.0f} s, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
