"""`tools.budget.fit` keeps the longest prefix of a list within a size budget: measured
at once for a short list that fits whole (issue 30: one serialisation instead of one per
item), the same prefix and flag as measuring each item."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pdfindex.tools import budget
from pdfindex.tools.budget import fit, size_of

item = st.recursive(
    st.one_of(st.none(), st.integers(), st.text(max_size=30), st.floats(allow_nan=False)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=8,
)


def one_by_one(items: list[Any], room: int) -> tuple[list[Any], bool]:
    """fit as it measured before: each item, in order."""
    kept: list[Any] = []
    used = 0
    for entry in items:
        size = size_of(entry)
        if kept and used + size > room:
            return kept, True
        kept.append(entry)
        used += size
    return kept, False


@settings(max_examples=300, deadline=None)
@given(items=st.lists(item, max_size=12), room=st.integers(0, 400))
def test_a_list_is_cut_where_measuring_each_item_cuts_it(items: list[Any], room: int) -> None:
    assert fit(items, room) == one_by_one(items, room)


def test_a_long_list_is_measured_item_by_item_up_to_the_budget() -> None:
    """Past WHOLE_UP_TO items each is measured, up to the budget (serialising a regex's
    100,000 matches to keep 20 of them would cost more than it saves): the same cut."""
    items = [{"line": n, "text": "x" * 40} for n in range(budget.WHOLE_UP_TO + 1)]
    kept, cut = fit(items, 2_000)
    assert (kept, cut) == one_by_one(items, 2_000)
    assert cut
    assert 0 < len(kept) < 50
    assert fit(items, 10**9) == (items, False)
