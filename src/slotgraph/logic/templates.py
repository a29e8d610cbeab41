"""The instruction template grammar: ``#when`` sections, ``{{name}}`` tags and prompt-program statements.

Prose is the default; everything the logic layer acts on is a ``{{ ... }}`` tag:

* ``{{#when expr}} … {{:else when expr}} … {{:else}} … {{/when}}`` — conditional sections, nestable;
* ``{{run tool with a = expr, b = expr set v = $.path, w = $.other}}`` — run a tool while the prompt is
  built (``with`` and ``set`` are optional);
* ``{{set v = expr}}`` — assign a variable while the prompt is built;
* ``{{= expr}}`` — the expression's value, as text;
* ``{{name}}`` — a variable's value (an identifier only).

Any other ``{{ ... }}`` (``{{TOOL:x}}``, legacy ``{{#if}}``) is prose and stays as written. Expressions are
compiled once here, in the ``dot_paths`` dialect so ``filled.party_size`` reads a slot.

:func:`parse_template` never raises: it returns the tree it could build and every :class:`TemplateIssue`
found (with a 1-based line and column in the template). Broken tags are dropped from the tree — a statement
is never shipped to the model as text — and an unclosed ``#when`` is closed at the end of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from slotgraph.expr import Expression, ExpressionError, compile_expression, parse_output_path

__all__ = [
    "Branch",
    "Interpolation",
    "Node",
    "RunStatement",
    "SetStatement",
    "Template",
    "TemplateIssue",
    "Text",
    "ValueStatement",
    "When",
    "compile_logic_expression",
    "parse_template",
]

DIALECT: Final = "dot_paths"

_TAG: Final = re.compile(r"\{\{(.*?)\}\}", re.DOTALL)
_NAME: Final = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")
_ASSIGN: Final = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)(.*)$", re.DOTALL)
_RUN: Final = re.compile(r"^run\s+([A-Za-z_][A-Za-z0-9_.\-]*)(.*)$", re.DOTALL)


def compile_logic_expression(source: str) -> Expression:
    """Compile an agent-logic expression (``dot_paths`` dialect); raises ExpressionSyntaxError."""
    return compile_expression(source.strip(), dialect=DIALECT)


@dataclass(frozen=True, slots=True)
class TemplateIssue:
    """A problem in a template: a stable ``code``, what is wrong, and where (1-based line and column)."""

    code: str
    message: str
    line: int
    column: int
    severity: str = "error"
    fix: str = ""


@dataclass(frozen=True, slots=True)
class Text:
    text: str


@dataclass(frozen=True, slots=True)
class Interpolation:
    """``{{name}}``: the variable's value; a name nobody knows stays literal (``raw``)."""

    name: str
    raw: str


@dataclass(frozen=True, slots=True)
class ValueStatement:
    """``{{= expr}}``."""

    expression: Expression
    line: int


@dataclass(frozen=True, slots=True)
class SetStatement:
    """``{{set target = expr}}``."""

    target: str
    expression: Expression
    line: int


@dataclass(frozen=True, slots=True)
class RunStatement:
    """``{{run tool with a = expr set v = $.path}}``."""

    tool: str
    args: tuple[tuple[str, Expression], ...]
    captures: tuple[tuple[str, str], ...]
    line: int


@dataclass(frozen=True, slots=True)
class Branch:
    """One arm of a ``#when``: its condition (``None`` for ``:else``) and its body."""

    condition: Expression | None
    body: tuple[Node, ...]
    line: int
    is_else: bool = False
    """``{{:else}}``; a non-else branch without a condition had a broken one and is never taken."""


@dataclass(frozen=True, slots=True)
class When:
    branches: tuple[Branch, ...]


Node = Text | Interpolation | ValueStatement | SetStatement | RunStatement | When


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed template: its nodes and the problems found while parsing."""

    source: str
    nodes: tuple[Node, ...]
    issues: tuple[TemplateIssue, ...] = ()

    @property
    def has_logic(self) -> bool:
        """Whether rendering can change the text (any tag other than plain prose)."""
        return any(not isinstance(node, Text) for node in self.nodes)

    def names_read(self) -> set[str]:
        """Every top-level name read by the template's expressions and ``{{name}}`` tags."""
        names: set[str] = set()
        for node in _walk(self.nodes):
            if isinstance(node, Interpolation):
                names.add(node.name)
            for expression in _expressions(node):
                names.update(expression_names(expression))
        return names

    def names_written(self) -> list[tuple[str, int]]:
        """Every variable a ``{{set}}`` or ``{{run ... set}}`` writes, with the line it is on."""
        out: list[tuple[str, int]] = []
        for node in _walk(self.nodes):
            if isinstance(node, SetStatement):
                out.append((node.target, node.line))
            elif isinstance(node, RunStatement):
                out.extend((name, node.line) for name, _ in node.captures)
        return out

    def runs(self) -> list[RunStatement]:
        return [node for node in _walk(self.nodes) if isinstance(node, RunStatement)]

    def expressions(self) -> list[tuple[Expression, int]]:
        """Every expression of the template (``#when`` conditions, ``{{= }}``, ``{{set}}``, ``{{run}}``
        arguments) with the line it is on."""
        out: list[tuple[Expression, int]] = []
        for node in _walk(self.nodes):
            if isinstance(node, When):
                out.extend((b.condition, b.line) for b in node.branches if b.condition is not None)
            elif isinstance(node, ValueStatement | SetStatement | RunStatement):
                out.extend((expression, node.line) for expression in _expressions(node))
        return out


def _walk(nodes: tuple[Node, ...]) -> list[Node]:
    out: list[Node] = []
    for node in nodes:
        out.append(node)
        if isinstance(node, When):
            for branch in node.branches:
                out.extend(_walk(branch.body))
    return out


def _expressions(node: Node) -> list[Expression]:
    if isinstance(node, ValueStatement | SetStatement):
        return [node.expression]
    if isinstance(node, RunStatement):
        return [expression for _, expression in node.args]
    if isinstance(node, When):
        return [b.condition for b in node.branches if b.condition is not None]
    return []


_IDENT: Final = re.compile(r"(?<![A-Za-z0-9_.'\"])([A-Za-z_][A-Za-z0-9_]*)")
_STRING: Final = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")
_KEYWORDS: Final = frozenset(
    {"and", "or", "not", "in", "is", "True", "False", "None", "if", "else", "lambda"}
)


def expression_names(expression: Expression) -> set[str]:
    """The top-level variable names an expression reads (``filled.x`` gives ``filled``)."""
    text = _STRING.sub("''", expression.source)
    return {name for name in _IDENT.findall(text) if name not in _KEYWORDS}


def _position(source: str, offset: int) -> tuple[int, int]:
    line = source.count("\n", 0, offset) + 1
    column = offset - (source.rfind("\n", 0, offset) + 1) + 1
    return line, column


def _split_top_level(text: str, separator: str) -> list[str]:
    """Split on ``separator`` outside quotes and brackets."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    start = 0
    index = 0
    while index < len(text):
        char = text[index]
        if quote is not None:
            if char == "\\":
                index += 2
                continue
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and text.startswith(separator, index):
            parts.append(text[start:index])
            start = index + len(separator)
            index = start
            continue
        index += 1
    parts.append(text[start:])
    return parts


def _find_keyword(text: str, word: str) -> int:
    """The offset of ``word`` standing alone outside quotes and brackets, or -1."""
    depth = 0
    quote: str | None = None
    index = 0
    while index < len(text):
        char = text[index]
        if quote is not None:
            if char == "\\":
                index += 2
                continue
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif (
            depth == 0
            and text.startswith(word, index)
            and (index == 0 or text[index - 1].isspace())
            and (index + len(word) == len(text) or text[index + len(word)].isspace())
        ):
            return index
        index += 1
    return -1


class _Parser:
    def __init__(self, source: str) -> None:
        self.source = source
        self.issues: list[TemplateIssue] = []

    def issue(self, code: str, message: str, offset: int, fix: str = "") -> None:
        line, column = _position(self.source, offset)
        self.issues.append(TemplateIssue(code, message, line, column, fix=fix))

    def expression(self, text: str, offset: int, what: str) -> Expression | None:
        if not text.strip():
            self.issue("malformed_statement", f"{what} has no expression", offset, "write an expression")
            return None
        try:
            return compile_logic_expression(text)
        except ExpressionError as err:
            self.issue(
                "bad_expression",
                f"{what} {text.strip()!r:.80}: {err.one_line()}",
                offset,
                "fix the expression (see docs/expressions.md for the grammar)",
            )
            return None

    def assignment(self, text: str, offset: int, what: str) -> tuple[str, Expression] | None:
        match = _ASSIGN.match(text)
        if match is None:
            self.issue(
                "malformed_statement",
                f"{what}: expected 'name = expression', got {text.strip()!r:.80}",
                offset,
                "write it as name = expression",
            )
            return None
        expression = self.expression(match.group(2), offset, f"{what} {match.group(1)}")
        return (match.group(1), expression) if expression is not None else None

    def run(self, body: str, offset: int) -> RunStatement | None:
        match = _RUN.match(body)
        line = _position(self.source, offset)[0]
        if match is None:
            self.issue(
                "malformed_statement",
                "a run statement names a tool: {{run tool with a = expr set v = $.path}}",
                offset,
                "name the tool right after 'run'",
            )
            return None
        tool, rest = match.group(1), match.group(2)
        ok = True
        args_text, captures_text = "", ""
        stripped = rest.strip()
        at_set = _find_keyword(stripped, "set")
        head, captures_text = (stripped[:at_set], stripped[at_set + 3 :]) if at_set >= 0 else (stripped, "")
        head = head.strip()
        if head:
            if not head.startswith("with") or (len(head) > 4 and not head[4].isspace()):
                self.issue(
                    "malformed_statement",
                    f"run {tool}: expected 'with' or 'set' after the tool name, got {head!r:.60}",
                    offset,
                    "write {{run tool with a = expr set v = $.path}}",
                )
                return None
            args_text = head[4:]
        args: list[tuple[str, Expression]] = []
        if args_text.strip():
            for part in _split_top_level(args_text, ","):
                assigned = self.assignment(part, offset, f"run {tool} argument")
                ok = ok and assigned is not None
                if assigned is not None:
                    args.append(assigned)
        elif head:
            self.issue("malformed_statement", f"run {tool}: 'with' has no arguments", offset)
            ok = False
        captures: list[tuple[str, str]] = []
        if at_set >= 0:
            if not captures_text.strip():
                self.issue("malformed_statement", f"run {tool}: 'set' has no captures", offset)
                ok = False
            for part in _split_top_level(captures_text, ","):
                match_capture = _ASSIGN.match(part)
                if match_capture is None:
                    self.issue(
                        "malformed_statement",
                        f"run {tool}: expected 'variable = $.path' after set, got {part.strip()!r:.60}",
                        offset,
                        "write set variable = $.path",
                    )
                    ok = False
                    continue
                path = match_capture.group(2).strip()
                try:
                    parse_output_path(path)
                except ExpressionError as err:
                    self.issue(
                        "bad_path",
                        f"run {tool} capture {match_capture.group(1)}: {err.one_line()}",
                        offset,
                        "write a path like $.data.code",
                    )
                    ok = False
                    continue
                captures.append((match_capture.group(1), path))
        if not ok:
            return None
        return RunStatement(tool, tuple(args), tuple(captures), line)

    def parse(self) -> tuple[Node, ...]:
        # Open #when blocks: (branches so far, current condition, parent body, open offset, in the else arm).
        root: list[Node] = []
        stack: list[tuple[list[Branch], Expression | None, list[Node], int, bool]] = []
        body = root
        at = 0
        for match in _TAG.finditer(self.source):
            if match.start() > at:
                body.append(Text(self.source[at : match.start()]))
            at = match.end()
            inner = match.group(1)
            stripped = inner.strip()
            offset = match.start()
            line = _position(self.source, offset)[0]
            if stripped.startswith("#when"):
                condition = self.expression(stripped[5:], offset, "#when condition")
                stack.append(([], condition, body, offset, False))
                body = []
            elif stripped.startswith(":else"):
                rest = stripped[5:].strip()
                if not stack:
                    self.issue(
                        "unbalanced_when",
                        f"{{{{{stripped}}}}} outside a #when section",
                        offset,
                        "remove it or open a section with {{#when condition}}",
                    )
                    continue
                branches, condition, parent, opened, seen_else = stack.pop()
                if seen_else:
                    self.issue(
                        "unbalanced_when",
                        f"{{{{{stripped}}}}} after {{{{:else}}}}",
                        offset,
                        "{{:else}} must be the last arm of its section",
                    )
                branches.append(Branch(condition, tuple(body), line, is_else=seen_else))
                if rest.startswith("when") and (len(rest) == 4 or rest[4].isspace()):
                    next_condition = self.expression(rest[4:], offset, ":else when condition")
                    stack.append((branches, next_condition, parent, opened, seen_else))
                elif rest:
                    self.issue(
                        "malformed_statement",
                        f"{{{{{stripped}}}}}: expected :else or :else when",
                        offset,
                        "write {{:else}} or {{:else when condition}}",
                    )
                    stack.append((branches, None, parent, opened, seen_else))
                else:
                    stack.append((branches, None, parent, opened, True))
                body = []
            elif stripped == "/when":
                if not stack:
                    self.issue(
                        "unbalanced_when",
                        "{{/when}} without a matching {{#when}}",
                        offset,
                        "remove it or open a section with {{#when condition}}",
                    )
                    continue
                branches, condition, parent, _opened, seen_else = stack.pop()
                branches.append(Branch(condition, tuple(body), line, is_else=seen_else))
                parent.append(When(tuple(branches)))
                body = parent
            elif stripped.startswith("=") and not stripped.startswith("=="):
                expression = self.expression(stripped[1:], offset, "{{= ...}}")
                if expression is not None:
                    body.append(ValueStatement(expression, line))
            elif stripped.startswith("set") and (len(stripped) == 3 or stripped[3].isspace()):
                assigned = self.assignment(stripped[3:], offset, "set")
                if assigned is not None:
                    body.append(SetStatement(assigned[0], assigned[1], line))
            elif stripped.startswith("run") and (len(stripped) == 3 or stripped[3].isspace()):
                statement = self.run(stripped, offset)
                if statement is not None:
                    body.append(statement)
            elif _NAME.match(inner):
                body.append(Interpolation(stripped, match.group(0)))
            else:
                body.append(Text(match.group(0)))
        if at < len(self.source):
            body.append(Text(self.source[at:]))
        while stack:
            branches, condition, parent, opened, seen_else = stack.pop()
            self.issue("unbalanced_when", "{{#when}} is never closed", opened, "add {{/when}} after its text")
            branches.append(
                Branch(condition, tuple(body), _position(self.source, opened)[0], is_else=seen_else)
            )
            parent.append(When(tuple(branches)))
            body = parent
        return tuple(root)


def parse_template(source: str) -> Template:
    """Parse an instruction template; never raises (problems are in ``Template.issues``)."""
    parser = _Parser(source)
    nodes = parser.parse()
    return Template(source, nodes, tuple(parser.issues))
