# bash completion for bprint (installed as share/bash-completion/completions/bprint).
# Completes the commands, each command's options, export's formats, trace
# files, and the call sites of the trace on the line (its ids, from
# `bprint formats`) after --site, --from and --to of hist and latency, and
# the field names of its sites after -v, -k, --by and --where.

_bprint_file_of_line() {
	# the last word that names an existing file: the trace being looked at
	local w
	for w in "${COMP_WORDS[@]:2}"; do
		[[ $w != -* && -f $w ]] && printf '%s\n' "$w"
	done | tail -n 1
}

_bprint_sites() {
	local f
	f=$(_bprint_file_of_line)
	[[ -n $f ]] && bprint formats "$f" 2>/dev/null | sed -n 's/^\([0-9][0-9]*\) : .*/\1/p'
}

_bprint_fields() {
	local f
	f=$(_bprint_file_of_line)
	[[ -n $f ]] && bprint formats "$f" 2>/dev/null | sed -n 's/^\t\([A-Za-z_][A-Za-z0-9_]*\) .*/\1/p' | sort -u
}

_bprint() {
	local cur prev cmd opts
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()
	if [[ $COMP_CWORD -eq 1 ]]; then
		COMPREPLY=($(compgen -W "report tail formats stats record recover snapshot enable disable sites export hist latency help --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $cmd in
	report) opts="--raw --msg-only --json --csv --no-header --tid --site --from --to --where --date --relative --kernel --help" ;;
	tail) opts="--raw --msg-only --no-header --tid --site --from --to --where --new --interval --help" ;;
	formats) opts="--libraries --help" ;;
	stats) opts="--all-sites --help" ;;
	record) opts="--output --buffer-size --page-size --mode --block-timeout --clock --kernel --kernel-buffer --quiet --pid --duration --trigger --where --before --after --max --help" ;;
	snapshot) opts="--output --quiet --help" ;;
	enable|disable) opts="--quiet --help" ;;
	recover) opts="--quiet --help" ;;
	sites) opts="--help" ;;
	export) opts="--format --output --quiet --tid --site --from --to --where --span --help" ;;
	hist) opts="--site --value --key --tid --where --buckets --percentiles --sort --limit --every --json --csv --svg --follow --help" ;;
	latency) opts="--from --to --key --pair --by --where --where-to --top --tid --buckets --percentiles --sort --limit --every --json --csv --svg --follow --sched --help" ;;
	help) COMPREPLY=($(compgen -W "report tail formats stats record recover snapshot enable disable sites export hist latency" -- "$cur")); return ;;
	*) return ;;
	esac
	case $prev in
	-f|--format)
		[[ $cmd == export ]] && { COMPREPLY=($(compgen -W "trace-cmd chrome perfetto ctf" -- "$cur")); return; } ;;
	-s|--site)
		COMPREPLY=($(compgen -W "$(_bprint_sites)" -- "$cur")); return ;;
	--trigger)
		return ;;
	-F|-T)
		[[ $cmd == latency ]] && { COMPREPLY=($(compgen -W "$(_bprint_sites)" -- "$cur")); return; } ;;
	--from|--to)
		if [[ $cmd == latency ]]; then
			COMPREPLY=($(compgen -W "$(_bprint_sites)" -- "$cur"))
			return
		fi
		return ;;
	-v|--value|-k|--key|-b|--by|-w|--where|--where-to)
		COMPREPLY=($(compgen -W "$(_bprint_fields)" -- "$cur")); return ;;
	-M|--mode)
		COMPREPLY=($(compgen -W "overwrite discard block" -- "$cur")); return ;;
	-c|--clock)
		[[ $cmd == record ]] && { COMPREPLY=($(compgen -W "tsc mono mono_raw boot counter" -- "$cur")); return; } ;;
	--buckets)
		COMPREPLY=($(compgen -W "log2 linear:" -- "$cur")); return ;;
	--pair)
		COMPREPLY=($(compgen -W "latest fifo all-before" -- "$cur")); return ;;
	--sort)
		COMPREPLY=($(compgen -W "count min max mean sum key p50 p90 p99 p99.9 p99.99" -- "$cur")); return ;;
	--percentiles|--limit|--every)
		return ;;
	-o|--output|--svg)
		COMPREPLY=($(compgen -f -- "$cur")); return ;;
	-t|--tid|--interval|--top|-n|-b|--buffer-size|-p|--page-size|--block-timeout|--span|--duration|--before|--after|--max)
		return ;;
	--pid)
		COMPREPLY=($(compgen -W "$(ls /proc 2>/dev/null | grep -E '^[0-9]+$')" -- "$cur")); return ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	elif [[ $cmd == record ]]; then
		COMPREPLY=($(compgen -c -- "$cur"))
	elif [[ $cmd == snapshot || $cmd == sites ]] ||
	     [[ ( $cmd == enable || $cmd == disable ) && $COMP_CWORD -eq 2 ]]; then
		COMPREPLY=($(compgen -W "$(ls /proc 2>/dev/null | grep -E '^[0-9]+$')" -- "$cur"))
	else
		COMPREPLY=($(compgen -f -- "$cur"))
	fi
}
complete -F _bprint bprint
