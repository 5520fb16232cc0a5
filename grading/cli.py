"""`python -m grading`: check, batch, bench, thresholds, ceilings, info."""
from __future__ import annotations

import argparse
import concurrent.futures
import os
import random
import sys

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from grading import env
from grading.spec import RUNGS

EPILOG = """\
examples:
  python -m grading check silu_mul                  grade every rung of your exercises.py
  python -m grading check silu_mul --rung triton    just your Triton kernel
  python -m grading check silu_mul --solutions      the reference solutions (should all pass)
  python -m grading check silu_mul --impl my.py:fast --rung triton
  python -m grading check silu_mul --file submission/exercises.py --json results.json
  python -m grading batch submissions/ --kernel silu_mul   grade a class, write a leaderboard
  python -m grading thresholds silu_mul             the speed tiers each rung is graded against
  python -m grading bench silu_mul --plot roofline.png
  python -m grading ceilings                        measure this GPU once (cached)
  python -m grading info                            what this machine can run

exit status: 0 when everything checked passes, 1 when something fails, 2 for a usage error;
batch: 0 once every submission has been graded, whatever the grades.
"""


class UsageError(Exception):
    pass


def _console() -> Console:
    console = Console(highlight=False)
    if not console.is_terminal:
        console.width = max(console.width, 120)
    return console


def _progress(console: Console) -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=console, transient=True)


def _spec(name: str):
    from grading.specs import get_spec
    try:
        return get_spec(name)
    except KeyError as e:
        raise UsageError(e.args[0]) from None


def cmd_check(args) -> int:
    from grading import impls, report
    from grading.grade import current_roofs, grade_impl

    console = _console()
    spec = _spec(args.kernel)
    if sum(map(bool, (args.impl, args.file, args.solutions))) > 1:
        raise UsageError("--impl, --file and --solutions each say what to grade: give one of them")
    if args.file and not os.path.isfile(args.file):
        raise UsageError(f"--file: no such file {args.file!r}")
    try:
        if args.impl:
            refs = [impls.parse_impl(args.impl, args.rung)]
        else:
            refs = impls.rung_refs(spec, [args.rung] if args.rung else None, args.solutions,
                                   path=args.file)
    except ValueError as e:
        raise UsageError(str(e)) from None
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    files = sorted({r.path for r in refs})
    header = f"{spec.name}: grading {', '.join(files)} · seed {seed}"
    console.print(env.device_summary())
    console.print(header)
    timing = None if (env.CPU_MODE or args.no_speed) else "speed"
    if env.CPU_MODE:
        console.print("speed: not graded (no GPU)")
    roofs = current_roofs() if timing else None

    # Each implementation is graded in its own worker process. Timed runs go one at a time, so
    # each has the GPU to itself; correctness alone runs them side by side, one per CPU.
    jobs = 1 if timing else max(1, min(len(refs), os.cpu_count() or 1))
    with _progress(console) as progress:
        def grade(ref):
            total = len(spec.cases(env.CPU_MODE)) + (len(spec.speed_cases()) if timing else 0)
            task = progress.add_task(f"{ref.label:<20}", total=total)

            def on_event(e):
                if e["event"] in ("result", "timing"):
                    progress.advance(task)
            rep = grade_impl(spec, ref, seed=seed, time=timing, timeout_s=args.timeout, roofs=roofs,
                             on_event=on_event)
            progress.update(task, completed=total)
            return rep

        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            reports = list(pool.map(grade, refs))
    for rep in reports:
        report.print_impl(console, spec, rep)
    console.print(report.summary_table(spec, reports))
    if timing:
        for rung in {r.ref.rung for r in reports if r.ref.rung in spec.speed_tiers}:
            console.print(f"speed tiers for the {rung} rung: {spec.tiers_for(rung).describe()} "
                          f"(passing: {spec.tiers_for(rung).passing})")
    console.print(f"rerun these exact inputs with --seed {seed}")
    if args.json:
        report.write_json(args.json, report.gradescope_json(spec, reports, seed, header))
        console.print(f"wrote {args.json}")
    return 0 if all(report.verdict_ok(spec, r) for r in reports) else 1


def cmd_batch(args) -> int:
    from pathlib import Path

    from grading import batch, impls
    from grading.grade import current_roofs

    spec = _spec(args.kernel)
    root = Path(args.dir)
    if not root.is_dir():
        raise UsageError(f"no such folder {args.dir!r}: expected a folder of submissions "
                         f"(DIR/<student>/exercises.py or DIR/<student>.py)")
    try:
        rungs = [impls.check_rung(r) for r in args.rung] if args.rung else impls.graded_rungs(spec)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.jobs < 1:
        raise UsageError("--jobs must be at least 1")
    if not batch.find_submissions(root):
        raise UsageError(f"no submissions in {root}: expected DIR/<student>/exercises.py or DIR/<student>.py")
    console = _console()
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    out_dir = Path(args.out or f"results-{spec.name}")
    timing = None if (env.CPU_MODE or args.no_speed or args.jobs > 1) else "speed"
    console.print(env.device_summary())
    console.print(f"{spec.name}: grading every submission in {root} (rungs: {', '.join(rungs)}) · seed {seed}")
    if args.jobs > 1 and not env.CPU_MODE and not args.no_speed:
        console.print("speed: not graded with --jobs > 1 (kernels timed side by side slow each other down)")
    elif not timing:
        console.print("speed: not graded" + (" (no GPU)" if env.CPU_MODE else ""))
    results = batch.run(spec, root, rungs=rungs, out_dir=out_dir, seed=seed, timing=timing,
                        timeout_s=args.timeout, jobs=args.jobs, roofs=current_roofs() if timing else None,
                        console=console, progress=_progress(console))
    console.print(f"graded {len(results)} submissions; wrote {out_dir}/leaderboard.md, leaderboard.csv, "
                  f"cases.csv and one results.json per student")
    console.print(f"rerun these exact inputs with --seed {seed}")
    return 0


def cmd_thresholds(args) -> int:
    from grading import impls
    spec = _spec(args.kernel)
    console = _console()
    console.print(f"{spec.name}: speed is graded in % of the speed of light (SOL) of the GPU in use: "
                  f"SOL time = max(bytes moved / memory bandwidth, FLOPs / peak rate), so the same "
                  f"thresholds hold on any GPU.")
    graded = impls.graded_rungs(spec)
    for rung in RUNGS:
        t = spec.tiers_for(rung)
        how = f"graded, passing: {t.passing}" if rung in spec.speed_tiers else "reported, not graded"
        console.print(f"  {rung:<9} {t.describe()} ({how})")
    cases = ", ".join(c.describe() for c in spec.speed_cases())
    console.print(f"the tier is that of the median % of SOL over the speed cases: {cases}")
    console.print(f"rungs `batch` grades unless told otherwise: {', '.join(graded)}")
    return 0


def cmd_bench(args) -> int:
    from grading import bench
    spec = _spec(args.kernel)
    for r in args.rungs or []:
        if r not in RUNGS:
            raise UsageError(f"unknown rung {r!r}; valid rungs: {', '.join(RUNGS)}")
    if args.rounds < 1:
        raise UsageError(f"--rounds: expected a whole number of at least 1, got {args.rounds}")
    return bench.run(spec, rungs=args.rungs, json_path=args.json, plot_path=args.plot, gpu_name=args.gpu,
                     exercises=args.exercises, timeout_s=args.timeout, console=_console(), rounds=args.rounds)


def cmd_ceilings(args) -> int:
    from grading import hardware
    console = _console()
    console.print(env.device_summary())
    if env.CPU_MODE:
        console.print("ceilings: needs a CUDA GPU to measure; datasheet figures are in `python -m grading info --gpus`")
        return 1
    cached = hardware.load_ceilings()
    if cached and not args.force:
        console.print("cached measurement (use --force to measure again):")
        result = cached
    else:
        with console.status("measuring copy, read, bf16 and fp8 matmul ceilings...") as status:
            result = hardware.measure_ceilings(progress=lambda msg: status.update(msg))
        path = hardware.save_ceilings(result)
        console.print(f"saved to {path}")
    if args.json:
        from grading.report import write_json
        write_json(args.json, result)
    from rich.table import Table
    t = Table(title="measured ceilings")
    t.add_column("what")
    t.add_column("value", justify="right")
    for k, v in result.items():
        t.add_row(k, f"{v:,.1f}" if isinstance(v, float) else str(v))
    console.print(t)
    return 0


def cmd_info(args) -> int:
    from grading import info
    return info.run(_console(), gpus=args.gpus)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m grading", description=(
        "Kernel Ladder's grader: checks your kernels against a float64 reference on fresh random "
        "inputs, times them, and places them on your GPU's roofline."),
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    c = sub.add_parser("check", help="check a kernel's rungs for correctness (and speed on a GPU)",
                       description="Check correctness on many cases (awkward shapes, every dtype, extreme "
                       "values) and, on a GPU, speed as a percent of the speed of light. Each implementation "
                       "runs in its own process: a crash or a hang fails it and the rest are still graded. "
                       "Timed runs go one at a time; when nothing is timed (no GPU, or --no-speed) the "
                       "processes run side by side, up to one per CPU.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("kernel", help="kernel name, e.g. silu_mul, rmsnorm")
    c.add_argument("--rung", help=f"one rung: {', '.join(RUNGS)} (default: all)")
    c.add_argument("--impl", metavar="FILE.py:FUNC",
                   help="grade this function instead (with --rung: which rung it claims to be)")
    c.add_argument("--file", metavar="PATH", help="grade the rungs of this file (laid out like exercises.py, e.g. "
                   "a submission) instead of the chapter's exercises.py")
    c.add_argument("--solutions", action="store_true", help="grade the reference solutions instead of exercises.py")
    c.add_argument("--seed", type=int, help="seed for the random inputs (printed every run)")
    c.add_argument("--json", metavar="PATH", help="write a Gradescope results.json here")
    c.add_argument("--no-speed", action="store_true", help="skip the speed check on a GPU")
    c.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="seconds without progress before an implementation counts as hung (default 300; "
                   "while nvcc compiles, 1800 or this, whichever is more)")
    c.set_defaults(func=cmd_check)

    a = sub.add_parser("batch", help="grade every submission in a folder; write a leaderboard and Gradescope JSON",
                       description="Grade a class: every DIR/<student>/exercises.py (with its .cu files) or "
                       "DIR/<student>.py, each rung in its own process, all with one seed. Writes "
                       "leaderboard.csv, leaderboard.md, cases.csv and <student>/results.json (Gradescope) "
                       "to OUTDIR. A submission that fails to load, crashes or hangs gets its row and "
                       "the batch goes on; the exit status is 0 once the batch has run.")
    a.add_argument("dir", metavar="DIR", help="folder of submissions")
    a.add_argument("--kernel", required=True, help="kernel to grade, e.g. silu_mul")
    a.add_argument("--rung", nargs="+", metavar="R",
                   help="rungs to grade (default: the rungs graded for speed, e.g. triton cuda)")
    a.add_argument("--out", metavar="OUTDIR", help="where to write the results (default: ./results-KERNEL)")
    a.add_argument("--seed", type=int, help="seed for the random inputs, the same for every student")
    a.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="seconds without progress before a submission counts as hung (default 300; "
                   "while nvcc compiles, 1800 or this, whichever is more)")
    a.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="submissions graded at once (default 1; with more, speed is not graded)")
    a.add_argument("--no-speed", action="store_true", help="skip the speed check on a GPU")
    a.set_defaults(func=cmd_batch)

    b = sub.add_parser("bench", help="time the rungs side by side with the baselines, draw the roofline",
                       description="Time every rung (and the baselines) on real model shapes in one run: µs, "
                       "GB/s or TFLOP/s, % of SOL, speedups. Without a GPU: the roofline analysis for a named "
                       "GPU (--gpu).")
    b.add_argument("kernel")
    b.add_argument("--rungs", nargs="+", metavar="RUNG", help=f"rungs to time (default all: {', '.join(RUNGS)})")
    b.add_argument("--exercises", action="store_true", help="also time your own rungs from exercises.py")
    b.add_argument("--json", metavar="PATH", help="write the results as JSON")
    b.add_argument("--plot", metavar="PATH", help="save the roofline plot (PNG)")
    b.add_argument("--gpu", metavar="NAME", help="analysis for this GPU (e.g. H100-SXM) when none is present")
    b.add_argument("--timeout", type=float, default=None, metavar="S")
    b.add_argument("--rounds", type=int, default=1, metavar="N",
                   help="time every implementation N times, the order reversed every other round, and keep "
                        "each case's median round: a drift of the GPU's speed over the run then falls on all "
                        "alike (default 1)")
    b.set_defaults(func=cmd_bench)

    t = sub.add_parser("thresholds", help="the speed tiers (in %% of SOL) each rung of a kernel is graded against")
    t.add_argument("kernel")
    t.set_defaults(func=cmd_thresholds)

    e = sub.add_parser("ceilings", help="measure this GPU's copy/read bandwidth and matmul rates (cached)")
    e.add_argument("--force", action="store_true", help="measure again even if cached")
    e.add_argument("--json", metavar="PATH", help="also write the result here")
    e.set_defaults(func=cmd_ceilings)

    i = sub.add_parser("info", help="what this machine can run: GPU, versions, CPU mode, nvcc, CUTLASS")
    i.add_argument("--gpus", action="store_true", help="also list the datasheet table of known GPUs")
    i.set_defaults(func=cmd_info)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    if getattr(args, "timeout", None) is None and hasattr(args, "timeout"):
        from grading.isolate import DEFAULT_TIMEOUT_S
        args.timeout = DEFAULT_TIMEOUT_S
    try:
        return args.func(args)
    except UsageError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
