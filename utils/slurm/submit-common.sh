# submit-common.sh - sourced by submit-sweep.sh and submit-generate.sh: the
# ptxbench binary's absolute path, the results folder, and the array job of
# shards with the merge job that runs when every shard has succeeded.
# Reads and sets the callers' variables: ptxbench, results, gpus, array,
# shards, sbatch_args; sets mode (static|gpu) and gres_args.

# The binary given with --ptxbench, else ptxbench on PATH, made absolute.
resolve_ptxbench() {
  ptxbench=${ptxbench:-$(command -v ptxbench || true)}
  [ -n "$ptxbench" ] || die "no ptxbench on PATH; name it with --ptxbench"
  [ -x "$ptxbench" ] || die "--ptxbench '$ptxbench' is not an executable"
  ptxbench=$(cd "$(dirname "$ptxbench")" && pwd)/$(basename "$ptxbench")
}

# Creates DIR/logs, makes $results absolute, and chooses the mode: GPU runs
# with --gres=gpu:G when --gpus-per-task is above 0, else static.
prepare_results() {
  mkdir -p "$results/logs"
  results=$(cd "$results" && pwd)
  mode=static
  gres_args=()
  if [ "$gpus" -gt 0 ]; then
    mode=gpu
    gres_args+=(--gres="gpu:$gpus")
  fi
}

# submit_shards SCRIPT ARGS...: SCRIPT ARGS... as the array job over
# $array, then merge-shards.sbatch after it; prints both job ids.
submit_shards() {
  local script=$1
  shift
  array_job=$(sbatch --parsable --array="$array" \
    --output="$results/logs/shard-%a.out" --open-mode=append "${gres_args[@]}" "${sbatch_args[@]}" \
    "$script" "$@")
  array_job=${array_job%%;*}
  merge_job=$(sbatch --parsable --dependency="afterok:$array_job" \
    --kill-on-invalid-dep=yes --output="$results/logs/merge-$array_job.out" \
    "${sbatch_args[@]}" "$here/merge-shards.sbatch" "$shards" "$results" "$ptxbench")
  merge_job=${merge_job%%;*}
  echo "array_job=$array_job"
  echo "merge_job=$merge_job"
}
