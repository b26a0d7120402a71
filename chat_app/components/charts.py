"""The recharts parts Baton's charts are made of, each loaded with recharts when a chart is
first drawn (:mod:`chat_app.components.lazy`): the same arguments as ``rx.recharts.*``."""

from __future__ import annotations

from typing import Any

import reflex as rx
from reflex_components_recharts import (
    CartesianGrid,
    ComposedChart,
    GraphingTooltip,
    Legend,
    Line,
    ReferenceLine,
    ResponsiveContainer,
    XAxis,
    YAxis,
)

from chat_app.components.lazy import loaded_when_drawn

__all__ = [
    "cartesian_grid",
    "composed_chart",
    "graphing_tooltip",
    "legend",
    "line",
    "reference_line",
    "x_axis",
    "y_axis",
]


def composed_chart(*children: Any, **props: Any) -> rx.Component:
    """``rx.recharts.composed_chart``: the chart in a responsive container, both lazy."""
    # Reflex wraps the chart in a ResponsiveContainer of its own; it is the one recharts
    # part not drawn lazily, so the chart moves into a lazy container of the same size.
    wrapped = ComposedChart.create(*children, **props)
    if not isinstance(wrapped, ResponsiveContainer):
        return wrapped
    return loaded_when_drawn(ResponsiveContainer).create(
        *wrapped.children,
        width=wrapped.width,  # pyright: ignore[reportAttributeAccessIssue]
        height=wrapped.height,  # pyright: ignore[reportAttributeAccessIssue]
        min_width=wrapped.min_width,  # pyright: ignore[reportAttributeAccessIssue]
        min_height=wrapped.min_height,  # pyright: ignore[reportAttributeAccessIssue]
    )


def cartesian_grid(**props: Any) -> rx.Component:
    return loaded_when_drawn(CartesianGrid).create(**props)


def graphing_tooltip(**props: Any) -> rx.Component:
    return loaded_when_drawn(GraphingTooltip).create(**props)


def legend(**props: Any) -> rx.Component:
    return loaded_when_drawn(Legend).create(**props)


def line(**props: Any) -> rx.Component:
    return loaded_when_drawn(Line).create(**props)


def reference_line(**props: Any) -> rx.Component:
    return loaded_when_drawn(ReferenceLine).create(**props)


def x_axis(**props: Any) -> rx.Component:
    return loaded_when_drawn(XAxis).create(**props)


def y_axis(**props: Any) -> rx.Component:
    return loaded_when_drawn(YAxis).create(**props)
