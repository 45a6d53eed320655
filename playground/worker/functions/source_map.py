"""Which line of the user's code produced each line of IR. Runs inside a worker.

JAX records where each operation came from: jaxpr equations carry source
info, StableHLO ops carry MLIR locations (``as_text(debug_info=True)``), and
optimised HLO instructions carry ``stack_frame_id`` metadata. Each function
here returns the IR text as shown to the user and, for every line of it, the
user's line number or None.

>>> from playground.worker.functions import usercode
>>> f = usercode.load("def f(x):\\n    return x * x\\n").function
>>> text, lines = jaxpr_with_lines(jax.jit(f).trace(jnp.arange(4.0)).jaxpr)
>>> list(zip(text.splitlines(), lines))[1]
('    b:f32[4] = mul a a', 2)
"""

from __future__ import annotations

import re

from playground.errors import USER_FILENAME, cap_text

_FILE = re.escape(USER_FILENAME)
_JAXPR_SOURCE = re.compile(rf"\s+# {_FILE}:(\d+)(?::\d+)? \([^)]*\)$")
_ANY_SOURCE_COMMENT = re.compile(r"\s+#( \S+:\d+(?::\d+)? \([^)]*\)| ?)$")  # JAX prints "# " when it has no location
_LOC_USE = re.compile(r" loc\((#loc\d*|\"[^\"]*\"|unknown)\)")
_LOC_DEF = re.compile(r"^(#loc\d*) = loc\((.*)\)$")
_LOC_REF = re.compile(r"#loc\d*")
_USER_LOC = re.compile(rf'"{_FILE}":(\d+)')


def jaxpr_with_lines(closed_jaxpr, width: int = 80) -> tuple[str, list[int | None]]:
    """The jaxpr as JAX prints it, each equation on its own line and tied to its user line."""
    if "\n" not in str(closed_jaxpr).strip() and closed_jaxpr.eqns:
        width = 40  # JAX joins a short jaxpr into one line: narrower, it gives each equation its own
    annotated = closed_jaxpr.pretty_print(source_info=True, use_color=False, width=width)
    text_lines, user_lines = [], []
    for line in annotated.splitlines():
        match = _JAXPR_SOURCE.search(line)
        user_lines.append(int(match.group(1)) if match else None)
        text_lines.append(_ANY_SOURCE_COMMENT.sub("", line))
    return "\n".join(text_lines), user_lines


def stablehlo_with_lines(lowered) -> tuple[str, list[int | None]]:
    """StableHLO text without location noise, each op tied to its user line."""
    debug_text = lowered.as_text(debug_info=True)
    definitions = {}
    body = []
    for line in debug_text.splitlines():
        match = _LOC_DEF.match(line)
        if match:
            definitions[match.group(1)] = match.group(2)
        else:
            body.append(line)
    text_lines, user_lines = [], []
    for line in body:
        uses = _LOC_USE.findall(line)
        user_lines.append(_resolve(uses[-1], definitions) if uses else None)
        text_lines.append(_LOC_USE.sub("", line))
    return "\n".join(text_lines), user_lines


def _resolve(loc: str, definitions: dict[str, str], depth: int = 0) -> int | None:
    """Follow #loc references depth-first, callee before caller, to the innermost user line."""
    if depth > 50:
        return None
    body = definitions.get(loc, loc)
    first_user = _USER_LOC.search(body)
    refs = _LOC_REF.findall(body)
    if first_user and (not refs or first_user.start() < body.find(refs[0])):
        return int(first_user.group(1))
    for ref in refs:
        found = _resolve(ref, definitions, depth + 1)
        if found is not None:
            return found
    return int(first_user.group(1)) if first_user else None


def hlo_lines(hlo_text: str) -> list[int | None]:
    """For each line of compiled HLO text, the user line from its stack frame, if any."""
    files = dict(re.findall(r'^(\d+) "(.*)"$', _section(hlo_text, "FileNames"), re.M))
    locations = {
        ident: (file_id, int(line))
        for ident, file_id, line in re.findall(
            r"^(\d+) \{file_name_id=(\d+) function_name_id=\d+ line=(\d+)", _section(hlo_text, "FileLocations"), re.M)
    }
    frames = dict(
        (ident, (location, parent))
        for ident, location, parent in re.findall(
            r"^(\d+) \{file_location_id=(\d+) parent_frame_id=(\d+)\}", _section(hlo_text, "StackFrames"), re.M)
    )

    def user_line(frame: str) -> int | None:
        for _ in range(50):  # frames form a chain towards the caller; stop at its root
            if frame not in frames:
                return None
            location, parent = frames[frame]
            file_id, line = locations.get(location, (None, 0))
            if files.get(file_id) == USER_FILENAME:
                return line
            if parent == frame:
                return None
            frame = parent
        return None

    result = []
    for line in hlo_text.splitlines():
        match = re.search(r"stack_frame_id=(\d+)", line)
        result.append(user_line(match.group(1)) if match else None)
    return result


def instruction_lines(hlo_text: str) -> dict[str, int | None]:
    """The user line of each instruction of compiled HLO text, by the instruction's name."""
    found: dict[str, int | None] = {}
    for line, user_line in zip(hlo_text.splitlines(), hlo_lines(hlo_text), strict=True):
        match = _DEFINED.match(line)
        if match:
            found.setdefault(match.group(1), user_line)
    return found


_DEFINED = re.compile(r"^\s*(?:ROOT\s+)?%?([\w.\-]+) = ")
LOCATION_TABLES = ("FileNames", "FunctionNames", "FileLocations", "StackFrames")


def hlo_with_lines(hlo_text: str) -> tuple[str, list[int | None], str]:
    """(the program, its user lines, the location tables): compiled HLO without its tables up front.

    XLA prints the tables that ``stack_frame_id`` refers to (FileNames,
    FunctionNames, FileLocations, StackFrames) between the module's header and
    its first computation: dozens of lines before the program. The program is
    shown on its own; the tables, with our own files and functions redacted, on
    request. Each program line keeps the user line its stack frame resolves to.
    """
    redacted = redact_file_names(hlo_text)
    program, program_lines, tables = [], [], []
    in_table = False
    for line, user_line in zip(redacted.splitlines(), hlo_lines(redacted), strict=True):
        if line in LOCATION_TABLES:
            in_table = True
        if in_table:
            tables.append(line)  # a table runs from its title to the next blank line
            in_table = line != ""
        elif not (line == "" and program[-1:] == [""]):  # the blank lines around the tables, once
            program.append(line)
            program_lines.append(user_line)
    while program and program[-1] == "":  # a text ends with its last computation, as its line map does
        program.pop()
        program_lines.pop()
    return "\n".join(program), program_lines, "\n".join(tables).strip()


def redact_file_names(hlo_text: str) -> str:
    """HLO's FileNames table, with every file but the user's shown as ``<internal>``.

    The table lists the whole Python stack that traced the function, our
    server's files included; the user needs only their own.
    """
    names = _section(hlo_text, "FileNames")
    if not names:
        return hlo_text
    redacted = re.sub(r'^(\d+) "(?!' + _FILE + r'").*"$', r'\1 "<internal>"', names, flags=re.M)
    hlo_text = hlo_text.replace(names, redacted, 1)
    # Function names, too: those of our files (inspect, run_stages, ...) say nothing to the user.
    user_files = set(re.findall(r'^(\d+) "' + _FILE + '"$', redacted, re.M))
    user_functions = {function for file_id, function in re.findall(
        r"^\d+ \{file_name_id=(\d+) function_name_id=(\d+)", _section(hlo_text, "FileLocations"), re.M)
        if file_id in user_files}
    functions = _section(hlo_text, "FunctionNames")
    if functions:
        hidden = re.sub(r'^(\d+) "(.*)"$', lambda m: m.group(0) if m.group(1) in user_functions
                        else f'{m.group(1)} "<internal>"', functions, flags=re.M)
        hlo_text = hlo_text.replace(functions, hidden, 1)
    return hlo_text


def _section(text: str, title: str) -> str:
    """The lines under a heading like ``FileNames`` in HLO text, up to the next blank line."""
    match = re.search(rf"^{title}\n(.*?)(?:\n\n|\Z)", text, re.S | re.M)
    return match.group(1) if match else ""


def capped(text: str, lines: list, max_chars: int) -> tuple[str, list]:
    """Cut a long text with its notice, and its line map to match."""
    shortened = cap_text(text, max_chars)
    if shortened is text:
        return text, lines
    kept = shortened.count("\n") + 1
    return shortened, (lines + [None] * kept)[:kept]
