"""`datapilot watch add|list|pause|resume|delete|history|backtest`: scheduled reports and
alerts from the terminal, for one user (`--user`, default the local one)."""

from __future__ import annotations

import json
from datetime import date
from typing import TYPE_CHECKING, Annotated

import typer

from datapilot.commands.assistants import UserOption, _fail, _open

if TYPE_CHECKING:
    from datapilot.settings import Settings

watch_app = typer.Typer(help="Watches: scheduled reports and alerts, backtested before trusted.")

IdArgument = Annotated[str, typer.Argument(help="The watch's id (see `datapilot watch list`).")]


def _settings() -> Settings:
    from datapilot.settings import get_settings

    return get_settings()


@watch_app.command("add")
def add(
    sentence: Annotated[str, typer.Argument(help='E.g. "tell me when Apple closes below 150".')],
    webhook: Annotated[
        str | None, typer.Option(help="POST each event here, signed (the secret is shown once).")
    ] = None,
    email: Annotated[str | None, typer.Option(help="Email each event to this address.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the watch as JSON.")] = False,
    user: UserOption = None,
) -> None:
    """Read a sentence into a watch, show what was understood, and save it."""
    from datapilot.core.watches import WatchChannels
    from datapilot.store.watches import WatchError, Watches
    from datapilot.watches.reading import WatchRefused
    from datapilot.watches.service import understand, watch_view

    store, tenant = _open(user)
    settings = _settings()
    try:
        spec = understand(sentence, settings, tenant.user_id)
    except WatchRefused as refused:
        _fail(str(refused))
    try:
        with store.session(write=True) as session:
            new = Watches(session, str(tenant.user_id), settings).create(
                spec, WatchChannels(webhook=webhook, email=email)
            )
    except WatchError as error:
        _fail(str(error))
    shown = watch_view(new.watch)
    if as_json:
        typer.echo(json.dumps({**shown, "secret": new.secret}, ensure_ascii=False, indent=2))
        return
    zh = spec.language == "zh"
    saved = "已保存" if zh else "saved"
    typer.echo(f"Watch {new.watch.id} {saved}: {shown['understood']}")
    if spec.waiting_for_data:
        waiting = ", ".join(spec.waiting_for_data)
        typer.echo(f"等待数据：{waiting}" if zh else f"Waiting for data: {waiting}")
    if new.secret:
        typer.echo(f"Webhook secret (shown once; signs X-Datapilot-Signature): {new.secret}")


@watch_app.command("list")
def list_watches(
    as_json: Annotated[bool, typer.Option("--json", help="Print the watches as JSON.")] = False,
    user: UserOption = None,
) -> None:
    """Your watches: id, status, unread events, what each does."""
    from datapilot.store.watches import Watches
    from datapilot.watches.service import watch_view

    store, tenant = _open(user)
    with store.session() as session:
        found = [watch_view(w) for w in Watches(session, str(tenant.user_id), _settings()).list()]
    if as_json:
        typer.echo(json.dumps(found, ensure_ascii=False, indent=2))
        return
    if not found:
        typer.echo('No watches yet; add one with `datapilot watch add "…"`.')
    for watch in found:
        typer.echo(
            f"{watch['id']}  {watch['status']}  {watch['unread']} unread  {watch['understood']}"
        )


def _set(watch_id: str, user: str | None, action: str) -> None:
    from datapilot.store.watches import Watches, WatchNotFound

    store, tenant = _open(user)
    try:
        with store.session(write=True) as session:
            watches = Watches(session, str(tenant.user_id), _settings())
            if action == "delete":
                watches.delete(watch_id)
            else:
                watches.set_status(watch_id, "paused" if action == "pause" else "active")
    except WatchNotFound as error:
        _fail(str(error))
    done = {"pause": "paused", "resume": "resumed", "delete": "deleted"}[action]
    typer.echo(f"Watch {watch_id} {done}.")


@watch_app.command("pause")
def pause(watch_id: IdArgument, user: UserOption = None) -> None:
    """Stop running a watch until it is resumed."""
    _set(watch_id, user, "pause")


@watch_app.command("resume")
def resume(watch_id: IdArgument, user: UserOption = None) -> None:
    """Run a paused watch again."""
    _set(watch_id, user, "resume")


@watch_app.command("delete")
def delete(watch_id: IdArgument, user: UserOption = None) -> None:
    """Delete a watch and its history."""
    _set(watch_id, user, "delete")


@watch_app.command("history")
def history(
    watch_id: IdArgument,
    as_json: Annotated[bool, typer.Option("--json", help="Print the events as JSON.")] = False,
    user: UserOption = None,
) -> None:
    """A watch's runs, newest first: time, result, delivery per channel, errors."""
    from datapilot.store.watches import Watches, WatchNotFound
    from datapilot.watches.service import event_line

    store, tenant = _open(user)
    try:
        with store.session() as session:
            events = Watches(session, str(tenant.user_id), _settings()).events(watch_id)
    except WatchNotFound as error:
        _fail(str(error))
    if as_json:
        typer.echo(json.dumps([e.model_dump(mode="json") for e in events], ensure_ascii=False))
        return
    if not events:
        typer.echo("No runs yet.")
    for event in events:
        typer.echo(event_line(event))


@watch_app.command("backtest")
def backtest(
    sentence: Annotated[
        str, typer.Argument(help='An alert, e.g. "S&P 500 falls more than 2% in a day".')
    ],
    start: Annotated[str, typer.Option("--from", help="First day, YYYY-MM-DD.")],
    end: Annotated[str, typer.Option("--to", help="Last day, YYYY-MM-DD.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the firings as JSON.")] = False,
    user: UserOption = None,
) -> None:
    """List every day an alert would have fired over history, with the value."""
    from datapilot.core.watches import WatchSpec
    from datapilot.watches.backtest import firing_line
    from datapilot.watches.reading import WatchRefused
    from datapilot.watches.service import backtest_sentence

    try:
        first, last = date.fromisoformat(start), date.fromisoformat(end)
    except ValueError as error:
        _fail(f"dates are YYYY-MM-DD: {error}")
    _, tenant = _open(user)
    try:
        result = backtest_sentence(sentence, _settings(), tenant.user_id, first, last)
    except WatchRefused as refused:
        _fail(str(refused))
    except ValueError as error:
        _fail(str(error))
    if as_json:
        shown = result.model_dump(mode="json", include={"watch", "fired", "no_data"})
        typer.echo(json.dumps(shown, ensure_ascii=False, indent=2))
        return
    spec = WatchSpec.model_validate(result.watch)
    zh = spec.language == "zh"
    times = f"触发 {len(result.fired)} 次" if zh else f"fired {len(result.fired)} times"
    typer.echo(f"{result.watch['understood']}{'；' if zh else '; '}{first}..{last}: {times}")
    if spec.condition is not None:
        for fired in result.fired:
            typer.echo(firing_line(fired, spec.condition, zh))
    if result.no_data:
        missing = ", ".join(result.no_data)
        typer.echo(f"窗口内没有数据：{missing}" if zh else f"No data in the window for: {missing}")
