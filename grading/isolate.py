"""Running one implementation in its own process, with a time limit.

A student's kernel can crash the process (segfault), poison the CUDA context (an illegal address
makes every later CUDA call fail), or never return. Each of those fails that implementation with a
diagnosis, and the grader goes on with the next.
"""
from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent

# No event for this long = hung. Generous: torch.compile on a CPU can take a minute per shape.
DEFAULT_TIMEOUT_S = float(os.environ.get("KL_TIMEOUT_S", "300"))
# Until its first event the worker is importing torch and Triton, not running graded code: a
# short --timeout (a batch's, say) must not count that against a submission.
STARTUP_S = 120.0
# While the worker says nvcc is compiling (a "compile" event), the limit is this one: the CUTLASS
# file is minutes of nvcc on a few cores, and a compiler finishes.
COMPILE_S = max(DEFAULT_TIMEOUT_S, 1800.0)


@dataclasses.dataclass
class WorkerRun:
    events: list[dict]
    returncode: int | None
    timed_out: bool
    log_tail: str
    failure: str | None  # a one-paragraph diagnosis when the process did not finish cleanly

    @property
    def last_case(self) -> str | None:
        for e in reversed(self.events):
            if e["event"] == "case_start":
                return e["case"]
        return None


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except (ValueError, AttributeError):
        return f"signal {-code}"


def _error_lines(log: str, limit: int = 4) -> str:
    """The lines of a crashed process's output that say what went wrong."""
    keys = ("Error", "error", "Exception", "illegal", "Segmentation", "Killed", "Aborted", "assert")
    lines = [ln.strip() for ln in log.splitlines() if any(k in ln for k in keys)]
    return "\n".join(lines[-limit:]) if lines else "\n".join(log.strip().splitlines()[-limit:])


def _limit(timeout_s: float, events: list[dict], compiling: str | None) -> float:
    """How long the worker may go without an event: longer before its first (imports) and while
    nvcc compiles."""
    if compiling:
        return max(timeout_s, COMPILE_S)
    return timeout_s if events else max(timeout_s, STARTUP_S)


def run_worker(job: dict, *, timeout_s: float = DEFAULT_TIMEOUT_S,
               on_event: Callable[[dict], None] | None = None) -> WorkerRun:
    with tempfile.TemporaryDirectory(prefix="kl-job-") as tmp:
        job = dict(job, events_path=str(Path(tmp) / "events.jsonl"))
        job_path = Path(tmp) / "job.json"
        job_path.write_text(json.dumps(job))
        Path(job["events_path"]).touch()
        log_path = Path(tmp) / "log.txt"
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        env.setdefault("PYTHONUNBUFFERED", "1")
        with open(log_path, "wb") as log:
            proc = subprocess.Popen([sys.executable, "-m", "grading.worker", str(job_path)],
                                    stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    env=env, start_new_session=True)
            events: list[dict] = []
            last_progress = time.monotonic()
            timed_out = False
            compiling = None  # what nvcc is compiling now, per the worker's last "compile" event
            with open(job["events_path"]) as ev:
                buf = ""
                while True:
                    chunk = ev.read()
                    if chunk:
                        buf += chunk
                        *lines, buf = buf.split("\n")
                        for line in lines:
                            if line.strip():
                                e = json.loads(line)
                                events.append(e)
                                last_progress = time.monotonic()
                                if e["event"] == "compile":
                                    compiling = e["what"] if e["started"] else None
                                if on_event:
                                    on_event(e)
                    if proc.poll() is not None:
                        rest = ev.read()
                        for line in (buf + rest).splitlines():
                            if line.strip():
                                e = json.loads(line)
                                events.append(e)
                                if on_event:
                                    on_event(e)
                        break
                    limit = _limit(timeout_s, events, compiling)
                    if time.monotonic() - last_progress > limit:
                        timed_out = True
                        try:
                            os.killpg(proc.pid, signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                        proc.wait()
                        break
                    time.sleep(0.05)
        log_text = log_path.read_text(errors="replace")
    run = WorkerRun(events, proc.returncode, timed_out, log_text[-4000:], None)
    done = any(e["event"] == "done" for e in events)
    where = f" while running {run.last_case}" if run.last_case else ""
    if timed_out and compiling:
        run.failure = (f"hung: compiling {compiling} took over {_limit(timeout_s, events, compiling):.0f} s"
                       f"{where}; the process was killed.")
    elif timed_out:
        run.failure = (f"hung: no progress for {_limit(timeout_s, events, None):.0f} s{where}; the process "
                       "was killed. Look for a loop that never ends or a kernel that never finishes.")
    elif not done:
        code = proc.returncode
        how = f"killed by {_signal_name(code)}" if code is not None and code < 0 else f"exit status {code}"
        run.failure = f"crashed{where} ({how}): {_error_lines(log_text)}"
    return run
