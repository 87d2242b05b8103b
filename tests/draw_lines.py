"""The checks the generator tests make of a new random stream of draws: a seed keeps every line it had, in
order, and gains only `-- @set` lines and the lines of the new stream's own blocks."""

from __future__ import annotations

from collections.abc import Callable


def added_lines_belong_to_the_draw(
    before: list[str], after: list[str], new_block: Callable[[str], object], sets: tuple[str, ...] = ()
) -> bool:
    """`after` is `before` plus `-- @set` lines (only of the properties `sets` names, when given) and lines
    inside blocks (`-- @scenario …` / `-- @section …` headers) for which `new_block(header)` is true."""
    set_lines = tuple(f"-- @set {k}=" for k in sets) if sets else ("-- @set ",)
    it = iter(after)
    if not all(any(a == b for a in it) for b in before):  # the old lines in their order
        return False
    kept = list(before)
    owner = None  # the block a line is in
    for line in after:
        if line.startswith(("-- @scenario ", "-- @section ")):
            owner = line
        if kept and line == kept[0]:
            kept.pop(0)
            continue
        if not (line.startswith(set_lines) or (owner is not None and new_block(owner))):
            return False
    return True


def without_blocks(text: str, blocks: tuple[str, ...], sets: tuple[str, ...] = ()) -> str:
    """`text` without the `-- @scenario` blocks named in `blocks` (a block ends at the next `-- @` line) and
    without the `-- @set` lines of the properties `sets` names: a seed's workload as it was before a stream of
    draws that adds those blocks and properties."""
    headers = {f"-- @scenario {b}" for b in blocks}
    set_lines = tuple(f"-- @set {p}=" for p in sets)
    out, skip = [], False
    for line in text.splitlines():
        if line.startswith("-- @"):
            skip = line in headers
            if skip or (set_lines and line.startswith(set_lines)):
                continue
        if not skip:
            out.append(line)
    return "\n".join(out)
