# Sourced first by each shell script in scripts/: with -h or --help among the script's arguments, prints
# its header comment (the usage line first) and exits 0 before the script does anything.
for ciot_help_arg in "$@"; do
  case $ciot_help_arg in
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  esac
done
unset ciot_help_arg
