"""A stand-in for ``ros2 launch`` on our XML launch file (test helper; launch is not installable).

It understands exactly the subset ``launch/robot_state_core.launch.xml`` uses, with the
semantics of ros2/launch's XML front end: ``<arg name default>``, ``<let name value>``,
``<node pkg exec namespace if unless>`` with ``<param from>`` and ``<param name type value>``, and
the substitutions ``$(var)``, ``$(find-pkg-share)``, ``$(eval)`` (a Python expression) and
``$(command)`` (a shell-split command whose stdout is the value). Anything else raises, so the
stand-in can never silently accept a file the real launch would read differently.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
import shlex
import subprocess
from typing import Any

from lxml import etree
import yaml

SUBSTITUTIONS = ('var', 'find-pkg-share', 'eval', 'command')


@dataclass(frozen=True)
class LaunchedNode:
    """What the launch file asks to start.

    Attributes:
        package: ``pkg``.
        executable: ``exec`` (a console script of the package).
        namespace: The evaluated namespace ('' for none).
        parameter_files: ``<param from>`` YAML files, in order.
        parameters: ``<param name value>`` values, evaluated and typed as launch_ros does.
    """

    package: str
    executable: str
    namespace: str
    parameter_files: tuple[Path, ...]
    parameters: dict[str, Any]


def _typed(value: str, type_identifier: str | None) -> Any:
    """A ``<param>`` value as launch_ros gives it to the node.

    ``type="str"`` keeps the string; without a type launch_ros reads the value as YAML (an empty
    string stays ''), and refuses anything but a scalar or a uniform list.
    """
    if type_identifier == 'str':
        return value
    if type_identifier is not None:
        raise ValueError(f'type="{type_identifier}" is not understood by this stand-in')
    parsed = yaml.safe_load(value)
    if parsed is None:
        return ''
    if not isinstance(parsed, bool | int | float | str | list):
        raise TypeError(f'launch_ros refuses a parameter value of type {type(parsed).__name__}')
    return parsed


def _split_arguments(text: str) -> list[str]:
    """Arguments of a substitution: split on spaces outside quotes and nested ``$(...)``.

    A quoted argument loses its quotes (as in launch's grammar); inside quotes only the same
    quote character ends it.
    """
    parts: list[str] = []
    current = ''
    quote = ''
    depth = 0
    i = 0
    while i < len(text):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ''
            else:
                current += ch
        elif ch in '\'"' and depth == 0:
            quote = ch
        elif text.startswith('$(', i):
            depth += 1
            current += '$('
            i += 1
        elif ch == ')' and depth > 0:
            depth -= 1
            current += ch
        elif ch == ' ' and depth == 0:
            parts.append(current)
            current = ''
        else:
            current += ch
        i += 1
    if quote or depth:
        raise ValueError(f'unbalanced quotes or substitutions in {text!r}')
    parts.append(current)
    return [p for p in parts if p != '']


def _closing_paren(text: str, start: int) -> int:
    """Index of the ``)`` that closes the substitution whose body starts at ``start``."""
    depth, quote = 1, ''
    for j in range(start, len(text)):
        ch = text[j]
        if quote:
            quote = '' if ch == quote else quote
        elif ch in '\'"':
            quote = ch
        elif text.startswith('$(', j):
            depth += 1
        elif ch == ')':
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f'unbalanced substitution in {text!r}')


class LaunchXml:
    """Evaluates a launch XML file for given launch arguments."""

    def __init__(self, path: Path, package_shares: Mapping[str, Path],
                 run_command: Callable[[list[str]], str]) -> None:
        self.root = etree.parse(str(path)).getroot()
        if self.root.tag != 'launch':
            raise ValueError(f'{path}: root element <{self.root.tag}>, expected <launch>')
        self.shares = dict(package_shares)
        self.run_command = run_command
        self.variables: dict[str, str] = {}

    def substitute(self, text: str) -> str:
        """Evaluate every ``$(name args...)`` in ``text``, innermost first."""
        out = ''
        i = 0
        while i < len(text):
            if text.startswith('$(', i):
                j = _closing_paren(text, i + 2)
                out += self._evaluate(text[i + 2:j])
                i = j + 1
            else:
                out += text[i]
                i += 1
        return out

    def _evaluate(self, body: str) -> str:
        name, _, rest = body.partition(' ')
        if name not in SUBSTITUTIONS:
            raise ValueError(f'substitution $({name}) is not understood by this stand-in')
        args = [self.substitute(a) for a in _split_arguments(rest)]
        if name == 'var':
            return self.variables[args[0]]
        if name == 'find-pkg-share':
            return str(self.shares[args[0]])
        if name == 'eval':
            return str(eval(' '.join(args), {'__builtins__': {}}, {}))  # as launch's $(eval)
        return self.run_command(shlex.split(' '.join(args)))

    def nodes(self, arguments: Mapping[str, str]) -> list[LaunchedNode]:
        """The nodes the file starts for ``arguments`` (``name:=value`` on the command line)."""
        unknown = set(arguments) - {a.get('name') for a in self.root.iter('arg')}
        if unknown:
            raise ValueError(f'undeclared launch arguments: {sorted(unknown)}')
        launched = []
        for element in self.root:
            if not isinstance(element.tag, str):
                continue  # a comment
            if element.tag == 'arg':
                name = element.get('name')
                self.variables[name] = (arguments[name] if name in arguments
                                        else self.substitute(element.get('default')))
            elif element.tag == 'let':
                self.variables[element.get('name')] = self.substitute(element.get('value'))
            elif element.tag == 'node':
                if 'if' in element.attrib and self.substitute(element.get('if')) != 'true':
                    continue
                if 'unless' in element.attrib and \
                        self.substitute(element.get('unless')) == 'true':
                    continue
                files, params = [], {}
                for param in element:
                    if not isinstance(param.tag, str):
                        continue
                    if param.tag != 'param':
                        raise ValueError(f'<node> child <{param.tag}> not understood')
                    if 'from' in param.attrib:
                        files.append(Path(self.substitute(param.get('from'))))
                    else:
                        params[param.get('name')] = _typed(self.substitute(param.get('value')),
                                                           param.get('type'))
                launched.append(LaunchedNode(element.get('pkg'), element.get('exec'),
                                             self.substitute(element.get('namespace', '')),
                                             tuple(files), params))
            else:
                raise ValueError(f'<{element.tag}> not understood by this stand-in')
        return launched


def run_command(command: list[str], env: Mapping[str, str]) -> str:
    """``$(command ...)``: the command's stdout; a failure raises (launch aborts too)."""
    proc = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False,
                          env=dict(env))
    if proc.returncode != 0:
        raise RuntimeError(f'command {command} failed ({proc.returncode}): {proc.stderr}')
    return proc.stdout
