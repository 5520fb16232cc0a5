# Sourced by the call scripts of this session and later ones (run from the repository root, $OUT set by the machine).
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=$PWD/.kl_cache
C=$(dirname "${BASH_SOURCE[1]}")  # the folder of the call script that sources this
# step NAME LIMIT CMD...: CMD's output to $OUT/NAME.txt, at most LIMIT seconds, its exit status printed.
step() { local name=$1 limit=$2; shift 2; local t0=$SECONDS
  timeout "$limit" "$@" > "$OUT/$name.txt" 2>&1; echo "== $name: exit $? in $((SECONDS - t0)) s"; }
# cand X: the folder $C/cand_X, csrc/rmsnorm.cu and rmsnorm_launch.cuh with cand_X.patch applied
# (the candidates are kept as patches against those files as they were then).
cand() { mkdir -p $C/cand_$1 && cp csrc/rmsnorm.cu csrc/rmsnorm_launch.cuh $C/cand_$1/ && patch -s -d $C/cand_$1 < $C/cand_$1.patch; }
# setup NAME: the wheels in .whl importable (PYTHONPATH), and the results written to /tmp/NAME
# ($OUT) with the machine's folder kept as $BACK (`cp $OUT/* $BACK/` sends them back).
setup() { python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
  export PYTHONPATH=/tmp/site; BACK=$OUT; OUT=/tmp/$1; mkdir -p "$OUT"; }
# ceilings_here: GPU := this GPU's key in grading.hardware's table (H200, H100-SXM, ...). Where the
# repository has no measured ceilings for it (benchmarks/ceilings/$GPU.json), measure them first
# (`grading ceilings`, into $KL_CACHE_DIR, which bench and the notebooks read), so that SOL and
# the copy roof are this machine's and not the datasheet's, and send them back to commit as
# $OUT/ceilings_$GPU.json (the only file it adds: a call gets 8 back).
ceilings_here() {
  GPU=$(python3 -c "from grading import hardware; print(hardware.current().key)" 2>/dev/null) || GPU=unknown
  echo "== GPU: $GPU"; [ -f "benchmarks/ceilings/$GPU.json" ] && return 0
  timeout 180 python3 -m grading ceilings > /tmp/ceilings.txt 2>&1; echo "== ceilings: exit $?"  # one file back, not two
  python3 -c "import json; from grading import hardware; d = hardware.load_ceilings(); d.pop('origin');
print(json.dumps(d, indent=2))" > "$OUT/ceilings_$GPU.json" && tail -12 /tmp/ceilings.txt; }
