"""``podscale explain-scale FILE``: read a ScaleInput document, run the decision engine
(``podscale.hpa.decide``) and print the decision trace, as text or JSON.

Loaded by ``podscale.cli.main`` only when the command runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import orjson
import yaml

from podscale.hpa import decide, render_trace, trace_to_dict
from podscale.hpa.scenario import ScaleInputError, parse_scale_input

__all__ = ["explain_scale"]


def _load_document(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise click.ClickException(f"cannot read {path}: {err.strerror}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise click.ClickException(f"{path} is not valid YAML or JSON: {err}") from None


@click.command("explain-scale")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option(
    "-o",
    "--output",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: the explained decision; json: decision, status, events and trace.",
)
def explain_scale(file: Path, output: str) -> None:
    """Decide one HPA sync from FILE (a ScaleInput document) and explain every step."""
    try:
        scenario = parse_scale_input(_load_document(file))
    except ScaleInputError as err:
        raise click.ClickException(f"{file}: {err}") from None
    decision = decide(
        scenario.hpa,
        scale=scenario.scale,
        pods=scenario.pods,
        metrics=scenario.metrics,
        history=scenario.history,
        now=scenario.now,
        config=scenario.config,
    )
    if output == "json":
        body = {
            "desiredReplicas": decision.desired_replicas,
            "rescale": decision.rescale,
            "reason": decision.reason,
            "error": decision.error,
            "status": decision.status,
            "events": [
                {"type": e.type, "reason": e.reason, "message": e.message} for e in decision.events
            ],
            "trace": trace_to_dict(decision.trace),
        }
        click.echo(orjson.dumps(body, option=orjson.OPT_INDENT_2).decode())
        return
    click.echo(render_trace(decision.trace))
    click.echo("conditions:")
    for cond in decision.status.get("conditions", []):
        click.echo(f"  {cond['type']}={cond['status']} {cond['reason']}: {cond['message']}")
    if decision.events:
        click.echo("events:")
        for event in decision.events:
            click.echo(f"  {event.type} {event.reason}: {event.message}")
