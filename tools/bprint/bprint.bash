# bash completion for bprint (installed as share/bash-completion/completions/bprint).
# Completes the commands, each command's options, export's formats, trace
# files, and the call sites of the trace on the line (its ids, from
# `bprint formats`) after --site, --from and --to of hist and latency, and
# the field names of its sites after -v, -k, --by and --where.  The
# commands, their options and the formats are asked of bprint itself
# (`bprint --help`, `bprint COMMAND --help`, `bprint export --format=help`),
# so that a new one needs nothing here.

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

_bprint_commands() {
	bprint --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z-]*\)  .*/\1/p'
}

_bprint_options() {
	bprint "$1" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u
}

_bprint() {
	local cur prev cmd
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()
	if [[ $COMP_CWORD -eq 1 ]]; then
		COMPREPLY=($(compgen -W "$(_bprint_commands) help --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	case $cmd in
	help) COMPREPLY=($(compgen -W "$(_bprint_commands)" -- "$cur")); return ;;
	-*|'') return ;;
	esac
	case $prev in
	-f|--format)
		[[ $cmd == export ]] && { COMPREPLY=($(compgen -W "$(bprint export --format=help 2>/dev/null)" -- "$cur")); return; } ;;
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
		COMPREPLY=($(compgen -W "$(_bprint_options "$cmd")" -- "$cur"))
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
