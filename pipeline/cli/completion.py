"""Shell completion scripts generated from the argparse parser itself (shtab for bash and zsh, a
walk of the same parser for fish), so they offer exactly the commands, options and choices the
parser accepts. A command's USER argument completes to the users under the root.

    eval "$(memroute completion bash)"                      # in ~/.bashrc
    eval "$(memroute completion zsh)"                       # in ~/.zshrc
    memroute completion fish > ~/.config/fish/completions/memroute.fish
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator

# The users under the root: folder names holding USER.md or MEMORY.md ($MEMROUTE_HOME, else ~/.memroute).
_USERS_SH = '''_memroute_users() {
  local root="${MEMROUTE_HOME:-$HOME/.memroute}" d
  for d in "$root"/*/; do
    [ -e "$d/USER.md" ] || [ -e "$d/MEMORY.md" ] || continue
    d="${d%/}"; printf '%s\\n' "${d##*/}"
  done
}
'''
_USERS_BASH = _USERS_SH + '''_shtab_memroute_users() { compgen -W "$(_memroute_users)" -- "$1"; }
'''
_USERS_ZSH = _USERS_SH + '''_shtab_memroute_users() { compadd -- ${(f)"$(_memroute_users)"}; }
'''
_USERS_FISH = '''function __memroute_users
    set -l root $MEMROUTE_HOME
    test -n "$root"; or set root ~/.memroute
    for d in $root/*/
        if test -e $d/USER.md -o -e $d/MEMORY.md
            basename $d
        end
    end
end
'''


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _user_actions(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    """The arguments that name a user: the USER positional and --user."""
    for sub in _subcommands(parser).values():
        for action in sub._actions:
            if action.dest == "user":
                yield action


def bash_or_zsh(parser: argparse.ArgumentParser, shell: str) -> str:
    import shtab

    for action in _user_actions(parser):
        action.complete = {"bash": "_shtab_memroute_users", "zsh": "_shtab_memroute_users"}  # type: ignore[attr-defined]
    preamble = {"bash": _USERS_BASH, "zsh": _USERS_ZSH}  # shtab takes one per shell (its stub says str)
    return str(shtab.complete(parser, shell=shell, preamble=preamble))  # type: ignore[arg-type, unused-ignore]


def fish(parser: argparse.ArgumentParser) -> str:
    """fish's `complete` lines, one per command and option, from the same parser."""
    commands = _subcommands(parser)
    lines = [_USERS_FISH, "complete -c memroute -f"]
    names = " ".join(commands)
    for name, sub in commands.items():
        lines.append(f"complete -c memroute -n 'not __fish_seen_subcommand_from {names}' -a {name} "
                     f"-d {_fish_quote(sub.description or '')}")
    for name, sub in commands.items():
        when = f"-n '__fish_seen_subcommand_from {name}'"
        for action in sub._actions:
            if action.help == argparse.SUPPRESS:
                continue
            help_text = _fish_quote((action.help or "").split(";")[0])
            longs = [o[2:] for o in action.option_strings if o.startswith("--")]
            shorts = [o[1:] for o in action.option_strings if len(o) == 2 and o[0] == "-"]
            values = _values(action)
            if action.option_strings:
                flags = " ".join([*(f"-l {o}" for o in longs), *(f"-s {o}" for o in shorts)])
                takes = "" if action.nargs == 0 else f" -x{values}" if values else " -r"
                lines.append(f"complete -c memroute {when} {flags}{takes} -d {help_text}")
            elif values:
                lines.append(f"complete -c memroute {when} -x{values} -d {help_text}")
    return "\n".join(lines) + "\n"


def _values(action: argparse.Action) -> str:
    if action.dest == "user":
        return " -a '(__memroute_users)'"
    if action.choices:
        return " -a " + _fish_quote(" ".join(str(c) for c in action.choices))
    return ""


def _fish_quote(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


SHELLS: dict[str, Callable[[argparse.ArgumentParser], str]] = {
    "bash": lambda parser: bash_or_zsh(parser, "bash"),
    "zsh": lambda parser: bash_or_zsh(parser, "zsh"),
    "fish": fish,
}

__all__ = ["SHELLS", "bash_or_zsh", "fish"]
