"""`python -m grading`: check, bench, ceilings, info."""
from __future__ import annotations

import argparse
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
  python -m grading bench silu_mul --plot roofline.png
  python -m grading ceilings                        measure this GPU once (cached)
  python -m grading info                            what this machine can run

exit status: 0 when everything checked passes, 1 when something fails, 2 for a usage error.
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
    try:
        if args.impl:
            refs = [impls.parse_impl(args.impl, args.rung)]
        else:
            refs = impls.rung_refs(spec, [args.rung] if args.rung else None, args.solutions)
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

    reports = []
    with _progress(console) as progress:
        for ref in refs:
            total = len(spec.cases(env.CPU_MODE)) + (len(spec.speed_cases()) if timing else 0)
            task = progress.add_task(f"{ref.label:<20}", total=total)

            def on_event(e, task=task):
                if e["event"] in ("result", "timing"):
                    progress.advance(task)
            reports.append(grade_impl(spec, ref, seed=seed, time=timing, timeout_s=args.timeout,
                                      roofs=roofs, on_event=on_event))
            progress.update(task, completed=total)
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


def cmd_bench(args) -> int:
    from grading import bench
    spec = _spec(args.kernel)
    for r in args.rungs or []:
        if r not in RUNGS:
            raise UsageError(f"unknown rung {r!r}; valid rungs: {', '.join(RUNGS)}")
    return bench.run(spec, rungs=args.rungs, json_path=args.json, plot_path=args.plot, gpu_name=args.gpu,
                     exercises=args.exercises, timeout_s=args.timeout, console=_console())


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
                       "runs in its own process: a crash or a hang fails it and the rest are still graded.",
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("kernel", help="kernel name, e.g. silu_mul, rmsnorm")
    c.add_argument("--rung", help=f"one rung: {', '.join(RUNGS)} (default: all)")
    c.add_argument("--impl", metavar="FILE.py:FUNC",
                   help="grade this function instead (with --rung: which rung it claims to be)")
    c.add_argument("--solutions", action="store_true", help="grade the reference solutions instead of exercises.py")
    c.add_argument("--seed", type=int, help="seed for the random inputs (printed every run)")
    c.add_argument("--json", metavar="PATH", help="write a Gradescope results.json here")
    c.add_argument("--no-speed", action="store_true", help="skip the speed check on a GPU")
    c.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="seconds without progress before an implementation counts as hung (default 300)")
    c.set_defaults(func=cmd_check)

    b = sub.add_parser("bench", help="time the rungs side by side with the baselines, draw the roofline",
                       description="Time every rung (and the baselines) on real model shapes in one run: µs, "
                       "GB/s or TFLOP/s, %% of SOL, speedups. Without a GPU: the roofline analysis for a named "
                       "GPU (--gpu).")
    b.add_argument("kernel")
    b.add_argument("--rungs", nargs="+", metavar="RUNG", help=f"rungs to time (default all: {', '.join(RUNGS)})")
    b.add_argument("--exercises", action="store_true", help="also time your own rungs from exercises.py")
    b.add_argument("--json", metavar="PATH", help="write the results as JSON")
    b.add_argument("--plot", metavar="PATH", help="save the roofline plot (PNG)")
    b.add_argument("--gpu", metavar="NAME", help="analysis for this GPU (e.g. H100-SXM) when none is present")
    b.add_argument("--timeout", type=float, default=None, metavar="S")
    b.set_defaults(func=cmd_bench)

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
