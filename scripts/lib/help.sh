# Sourced by each script in scripts/ before it does anything: -h or --help
# prints the script's opening comment (its usage) and exits.
case "${1:-}" in
  -h | --help)
    sed -n '2,/^[^#]/{/shellcheck/d;s/^# \{0,1\}//p}' "$0"
    exit 0
    ;;
esac
