"""Issue 11 item 6: every ``raise`` inside an ``except`` handler follows the chaining rule.

The rule is written in the docstring of :mod:`robot_state_core.errors` (and in the preamble of
``docs/decisions.md``). This test reads the package's source with :mod:`ast` and reports every
violation in one failure message.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import robot_state_core

PACKAGE = Path(robot_state_core.__file__).parent

#: Exceptions of a failed lookup, comparison or conversion: the only ones that may be dropped
#: (``from None``), and only by a handler that does not even bind them.
PROBE_ERRORS = frozenset({'KeyError', 'IndexError', 'LookupError', 'TypeError', 'ValueError'})
#: Builtin exception classes: inside a handler we raise our typed errors, never these.
BUILTIN_ERRORS = frozenset(name for name, value in vars(builtins).items()
                           if isinstance(value, type) and issubclass(value, BaseException))


def _caught_names(handler: ast.ExceptHandler) -> set[str]:
    """The (last dotted component of the) exception types a handler catches."""
    if handler.type is None:
        return {'BaseException'}
    nodes = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    names = set()
    for node in nodes:
        if isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, ast.Name):
            names.add(node.id)
        else:
            names.add(ast.unparse(node))
    return names


def _raises_in(body: list[ast.stmt]) -> list[ast.Raise]:
    """``raise`` statements of a handler body, not those of nested handlers or functions."""
    found: list[ast.Raise] = []
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef
                      | ast.ExceptHandler):
            continue  # nested handlers are checked on their own
        if isinstance(node, ast.Raise):
            found.append(node)
        stack.extend(ast.iter_child_nodes(node))
    return found


def _violations(source: str, where: str) -> list[str]:
    """Every ``raise`` inside an ``except`` handler of ``source`` that breaks the rule."""
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    out = []
    for handler in (n for n in ast.walk(tree) if isinstance(n, ast.ExceptHandler)):
        # names bound by this handler and by the handlers it is nested in
        bound = set()
        node: ast.AST | None = handler
        while node is not None:
            if isinstance(node, ast.ExceptHandler) and node.name:
                bound.add(node.name)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                break
            node = parents.get(node)
        caught = _caught_names(handler)
        for statement in _raises_in(handler.body):
            at = f'{where}:{statement.lineno}: '
            text = ast.unparse(statement)[:100]
            if statement.exc is None:
                continue  # bare ``raise``: the caught exception itself, unchanged
            if isinstance(statement.exc, ast.Name) and statement.exc.id in bound:
                out.append(f'{at}re-raise the caught exception with a bare `raise`: {text}')
                continue
            called = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
            if isinstance(called, ast.Name) and called.id in BUILTIN_ERRORS:
                out.append(f'{at}raise a RobotStateCoreError subclass, not {called.id}: {text}')
            cause = statement.cause
            if cause is None:
                out.append(f'{at}say the cause: `from <caught>` (or `from None` for a lookup '
                           f'probe): {text}')
            elif isinstance(cause, ast.Constant) and cause.value is None:
                if handler.name:
                    out.append(f'{at}`from None` drops the bound {handler.name!r}; chain it '
                               f'with `from {handler.name}`: {text}')
                elif not caught <= PROBE_ERRORS:
                    out.append(f'{at}`from None` only for a failed lookup/conversion '
                               f'({", ".join(sorted(PROBE_ERRORS))}), here it drops '
                               f'{", ".join(sorted(caught - PROBE_ERRORS))}; bind it and chain '
                               f'it: {text}')
            elif not (isinstance(cause, ast.Name) and cause.id in bound):
                out.append(f'{at}chain the caught exception (`from {handler.name or "err"}`), '
                           f'not {ast.unparse(cause)}: {text}')
    return out


def test_the_rule_catches_each_kind_of_violation() -> None:
    """The checker itself: one snippet per violation kind, and the accepted forms."""
    bad = '''
try:
    f()
except OSError as err:
    raise RobotDescriptionError('a')
except ValueError as err:
    raise err
except KeyError as err:
    raise UnknownNameError('n', 'link') from None
except IndexError:
    raise InvalidIndexError('i') from other
except ImportError as err:
    raise RuntimeError('x') from err
except OSError:
    raise RobotDescriptionError('b') from None
'''
    found = _violations(bad, 'bad.py')
    assert [line.split(': ', 1)[0] for line in found] == [
        f'bad.py:{n}' for n in (5, 7, 9, 11, 13, 15)], found
    good = '''
try:
    f()
except OSError as err:
    raise RobotDescriptionError('a') from err
except (KeyError, TypeError):
    raise UnknownNameError('n', 'link') from None
except BaseException:
    cleanup()
    raise
except ValueError as outer:
    try:
        g()
    except ImportError:
        raise BackendUnavailableError('x') from outer
'''
    assert _violations(good, 'good.py') == []


def test_every_raise_in_an_except_handler_follows_the_chaining_rule() -> None:
    """Every module of the package: explicit cause, ``from None`` only for lookup probes."""
    files = sorted(PACKAGE.rglob('*.py'))
    assert len(files) > 40
    violations = [v for path in files
                  for v in _violations(path.read_text(encoding='utf-8'),
                                       str(path.relative_to(PACKAGE.parent)))]
    assert not violations, (f'{len(violations)} raise statements break the chaining rule '
                            '(robot_state_core/errors.py docstring):\n' + '\n'.join(violations))
