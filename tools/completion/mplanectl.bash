# SPDX-License-Identifier: GPL-2.0
# bash completion for mplanectl(8).
#
# Everything is read from mplanectl's own --help, so that completion
# follows the commands as they change: the groups and their commands
# from the "Commands:" lists, the options from the "--name" words of a
# command's help, and the settings of link add, link set and link plane
# (KEYWORD VALUE pairs) with their choices.  Each help is read once per
# shell and kept.

declare -gA _mplanectl_help_cache

# _mplanectl_help WORD... : the help of 'mplanectl WORD... --help'.
_mplanectl_help()
{
	local key="mplanectl $*"

	if [[ -z ${_mplanectl_help_cache[$key]+set} ]]; then
		_mplanectl_help_cache[$key]=$("${_mplanectl_cmd:-mplanectl}" \
			"$@" --help 2>/dev/null)
	fi
	printf '%s\n' "${_mplanectl_help_cache[$key]}"
}

# The words of a "Commands:" list.
_mplanectl_commands()
{
	_mplanectl_help "$@" | awk '/^Commands:/ { on = 1; next }
		on && /^  [a-z]/ { print $1; next } on && !/^  / { on = 0 }'
}

# The long options a help names.
_mplanectl_options()
{
	_mplanectl_help "$@" | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u
}

# Settings: "  KEYWORD ARG" lines under "Settings".
_mplanectl_settings()
{
	_mplanectl_help "$@" | awk '/^Settings/ { on = 1; next }
		on && /^  [a-z]/ { print $1 } on && /^[^ ]/ { on = 0 }'
}

# The choices of setting KEYWORD, when it has names ("flowlet|hash").
_mplanectl_choices()
{
	local kw=$1

	shift
	_mplanectl_help "$@" | awk -v kw="$kw" '/^Settings/ { on = 1; next }
		on && $1 == kw && $2 ~ /\|/ && $2 !~ /[A-Z]/ {
			n = split($2, c, "|"); for (i = 1; i <= n; i++) print c[i] }'
}

_mplanectl()
{
	local cur prev words cword
	local i w path=() seen_dev=

	_init_completion || return
	_mplanectl_cmd=${words[0]}

	# The words that name the command: skip global options and their
	# arguments (-n NAME).
	for ((i = 1; i < cword; i++)); do
		w=${words[i]}
		case $w in
		-n|--netns) ((i++)) ;;
		-*) ;;
		*) if [[ ${#path[@]} -lt 2 ]]; then path+=("$w"); else seen_dev=1; fi ;;
		esac
	done

	case $prev in
	-n|--netns)
		COMPREPLY=($(compgen -W "$(ip netns list 2>/dev/null |
			awk '{ print $1 }')" -- "$cur"))
		return ;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_mplanectl_options "${path[@]}")" \
			-- "$cur"))
		return
	fi
	case ${#path[@]} in
	0|1)
		COMPREPLY=($(compgen -W "$(_mplanectl_commands "${path[@]}")" \
			-- "$cur"))
		return ;;
	esac

	# link add|set|plane DEV KEYWORD VALUE...: a device first, then
	# keywords, and after a keyword its choices.
	if [[ ${path[0]} == link ]]; then
		if [[ -z $seen_dev ]]; then
			COMPREPLY=($(compgen -W "$(ls /sys/class/net 2>/dev/null)" \
				-- "$cur"))
			return
		fi
		local choices
		choices=$(_mplanectl_choices "$prev" "${path[@]}")
		if [[ -n $choices ]]; then
			COMPREPLY=($(compgen -W "$choices" -- "$cur"))
			return
		fi
		COMPREPLY=($(compgen -W "$(_mplanectl_settings "${path[@]}")" \
			-- "$cur"))
		return
	fi
	_filedir
}
complete -F _mplanectl mplanectl
