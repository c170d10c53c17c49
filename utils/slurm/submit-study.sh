#!/bin/bash
# submit-study.sh - a study file (`ptxbench study`, docs/study.md) as a Slurm
# array job: the study's generate command, one task of the study per array
# task (its own store), and the merge job that runs when every one has
# succeeded; submit-generate.sh does the submitting.
#
#   utils/slurm/submit-study.sh STUDY.json [--results DIR] [--gpus-per-task G]
#       [--array LIST] [--ptxbench PATH] [--sbatch-arg ARG]... [-- STUDY-ARGS...]
#
#   STUDY-ARGS    ptxbench study's path flags: --models, --tasks, --docs,
#                 --out (the same ones give the same command line)
#   --results     the shard stores, logs and the merged DIR/all.sqlite
#                 (default: the study's out folder + /slurm)
#   --gpus-per-task, --array, --ptxbench, --sbatch-arg
#                 as submit-generate.sh's; resubmitting (all, or --array
#                 LIST) resumes: only what is missing is sent and evaluated
#
# Prints array_job=ID and merge_job=ID. Then `ptxbench report --db
# DIR/all.sqlite` gives the study's tables.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
die() { echo "submit-study.sh: $*" >&2; exit 1; }

[ $# -ge 1 ] || usage
case $1 in -h|--help) usage ;; esac
study=$1
shift
results="" ptxbench="" pass=()
while [ $# -gt 0 ]; do
  case $1 in
    --results) results=${2:?}; shift 2 ;;
    --ptxbench) ptxbench=${2:?}; pass+=("$1" "$2"); shift 2 ;;
    --gpus-per-task|--array|--sbatch-arg) pass+=("$1" "${2:?}"); shift 2 ;;
    --) shift; break ;;
    -h|--help) usage ;;
    *) die "unknown option '$1' (ptxbench study's options go after --)" ;;
  esac
done
[ -f "$study" ] || die "no study file '$study'"
bin=${ptxbench:-$(command -v ptxbench || true)}
[ -n "$bin" ] || die "no ptxbench on PATH; name it with --ptxbench"

tasks=$("$bin" study "$study" --print-tasks "$@") || die "ptxbench study refused '$study' (above)"
mapfile -t generate < <("$bin" study "$study" --print-generate "$@")
[ ${#generate[@]} -gt 0 ] || die "ptxbench study gave no generate arguments"
if [ -z "$results" ]; then
  for ((i = 0; i < ${#generate[@]}; i++)); do
    [ "${generate[$i]}" = --out ] && results=$(dirname "${generate[$((i + 1))]}")/slurm
  done
fi
exec "$here/submit-generate.sh" --task-list "$tasks" --results "$results" "${pass[@]}" -- "${generate[@]}"
