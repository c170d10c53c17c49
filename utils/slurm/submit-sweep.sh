#!/bin/bash
# submit-sweep.sh - a ptxbench sweep as a Slurm array job, one shard and one
# results store per task, and a merge job that runs when every shard has
# succeeded.
#
#   utils/slurm/submit-sweep.sh --shards N --results DIR [--gpus-per-task G]
#       [--array LIST] [--ptxbench PATH] [--sbatch-arg ARG]... -- EVAL-ARGS...
#
#   EVAL-ARGS     ptxbench eval's own: --tasks, --samples, --arch, --shapes,
#                 --sass, --jobs, --timeout (not --db, --shard, --gpus,
#                 --static-only: this script sets them)
#   --shards N    shards of the sweep; task K evaluates --shard K/N into
#                 DIR/shard-K.sqlite (logs in DIR/logs/shard-K.out)
#   --gpus-per-task G
#                 GPU runs: each task asks for --gres=gpu:G and eval runs on
#                 the GPUs Slurm gives it (CUDA_VISIBLE_DEVICES); 0 (the
#                 default) is a static-only sweep
#   --array LIST  only these shards (e.g. 3 or 1,5-7): resubmit what was
#                 cancelled or failed; the merge then covers all N shards
#   --ptxbench    the binary (default: ptxbench on PATH); it must be
#                 reachable from the compute nodes
#   --sbatch-arg  passed to both sbatch calls (--partition=..., --time=...,
#                 --account=..., --cpus-per-task=...); repeat for more
#
# Prints the array job's and the merge job's ids (array_job=ID, merge_job=ID).
# The merged store is DIR/all.sqlite. Jobs start in the current folder, so
# relative --tasks and --samples paths stay valid.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=submit-common.sh
. "$here/submit-common.sh"

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
die() { echo "submit-sweep.sh: $*" >&2; exit 1; }

shards="" results="" gpus=0 array="" ptxbench="" sbatch_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --shards) shards=${2:?}; shift 2 ;;
    --results) results=${2:?}; shift 2 ;;
    --gpus-per-task) gpus=${2:?}; shift 2 ;;
    --array) array=${2:?}; shift 2 ;;
    --ptxbench) ptxbench=${2:?}; shift 2 ;;
    --sbatch-arg) sbatch_args+=("${2:?}"); shift 2 ;;
    --sbatch-arg=*) sbatch_args+=("${1#--sbatch-arg=}"); shift ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) die "unknown option '$1' (ptxbench eval's options go after --)" ;;
  esac
done
[ -n "$shards" ] && [ -n "$results" ] || usage
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "--shards expects a positive number, got '$shards'"
[[ $gpus =~ ^[0-9]+$ ]] || die "--gpus-per-task expects a number, got '$gpus'"
for a in "$@"; do
  case $a in
    --db|--db=*|--shard|--shard=*|--gpus|--gpus=*|--static-only)
      die "'$a' is set by this script; see --results, --shards, --gpus-per-task" ;;
  esac
done
resolve_ptxbench
array=${array:-0-$((shards - 1))}

prepare_results
submit_shards "$here/eval-shard.sbatch" "$shards" "$results" "$ptxbench" "$mode" -- "$@"
