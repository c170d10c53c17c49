#!/bin/bash
# submit-generate.sh - `ptxbench generate` as a Slurm array job, one task of
# the suite per array task (its own store and budget), and the merge job
# that runs when every one has succeeded.
#
#   utils/slurm/submit-generate.sh --task-list A,B,... --results DIR
#       [--gpus-per-task G] [--array LIST] [--ptxbench PATH]
#       [--sbatch-arg ARG]... -- GENERATE-ARGS...
#
#   GENERATE-ARGS ptxbench generate's own: --models, --model, --tasks,
#                 --arch, --context, --samples, --turns, --out, --max-cost,
#                 --max-tokens, ... (not --task, --db, --gpus, --static-only:
#                 this script sets them). --out is shared: each array task
#                 writes only its task's folders. --max-cost and
#                 --max-tokens are each array task's own.
#   --task-list   the tasks, one array task each: array task K asks for
#                 the K-th into DIR/shard-K.sqlite (log DIR/logs/shard-K.out)
#   --gpus-per-task G
#                 evaluate on G GPUs per array task (--gres=gpu:G, eval
#                 pinned to Slurm's CUDA_VISIBLE_DEVICES); 0 (the default):
#                 --static-only
#   --array LIST  only these array tasks (e.g. 1 or 0,2): resubmit what was
#                 cancelled, failed or stopped by its budget; generate
#                 resumes it, and the merge covers all tasks
#   --ptxbench    the binary (default: ptxbench on PATH)
#   --sbatch-arg  passed to both sbatch calls; repeat for more
#
# Prints array_job=ID and merge_job=ID. The merged store is DIR/all.sqlite.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=submit-common.sh
. "$here/submit-common.sh"

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
die() { echo "submit-generate.sh: $*" >&2; exit 1; }

tasks="" results="" gpus=0 array="" ptxbench="" sbatch_args=()
while [ $# -gt 0 ]; do
  case $1 in
    --task-list) tasks=${2:?}; shift 2 ;;
    --results) results=${2:?}; shift 2 ;;
    --gpus-per-task) gpus=${2:?}; shift 2 ;;
    --array) array=${2:?}; shift 2 ;;
    --ptxbench) ptxbench=${2:?}; shift 2 ;;
    --sbatch-arg) sbatch_args+=("${2:?}"); shift 2 ;;
    --sbatch-arg=*) sbatch_args+=("${1#--sbatch-arg=}"); shift ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) die "unknown option '$1' (ptxbench generate's options go after --)" ;;
  esac
done
[ -n "$tasks" ] && [ -n "$results" ] || usage
[[ $tasks =~ ^[^,]+(,[^,]+)*$ ]] || die "--task-list expects task names separated by commas, got '$tasks'"
[[ $gpus =~ ^[0-9]+$ ]] || die "--gpus-per-task expects a number, got '$gpus'"
for a in "$@"; do
  case $a in
    --task|--task=*|--db|--db=*|--gpus|--gpus=*|--static-only)
      die "'$a' is set by this script; see --task-list, --results, --gpus-per-task" ;;
  esac
done
resolve_ptxbench
IFS=, read -r -a list <<< "$tasks"
shards=${#list[@]}
array=${array:-0-$((shards - 1))}

prepare_results
submit_shards "$here/generate-shard.sbatch" "$results" "$ptxbench" "$tasks" "$mode" -- "$@"
