"""A set of tool questions, and the loopback services they are asked against, read offline.

The services are real: the FX and weather API (`tool_servers`), the Qianfan to-do plugin
(`plugin_servers`), and an MCP server with two tools (`mcp_quotes_server`); four more tools are
schema only (a news search, a unit converter, a loan and a savings calculator), for the numbers
and free text they take. Every question is read against all of them at once, as a user's
assistant bound to them all would. Each case says its expected outcome: the right call (tool and
arguments, compared with what the service received), a question back (which tool, or an
argument not given), or no tool. Shared by `tests/brains/test_offline_tool_questions.py` and
`bench/tool_questions.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from datapilot.brains.offline import OfflineBrain
from datapilot.brains.offline.tool_args import fill_arguments
from datapilot.brains.offline.tool_choice import ToolSpec, choose_tool
from datapilot.core.context import QuestionContext
from datapilot.net.policy import OutboundPolicy
from datapilot.settings import Settings, get_settings
from datapilot.tools.imported import OpenAPITool
from datapilot.tools.mcp_client import mcp_tools, read_mcp
from datapilot.tools.secrets import AuthStored
from datapilot.tools.sources import SourceIn, read_openapi
from support import mcp_quotes_server
from support.live_server import live_server
from support.plugin_servers import plugin_app
from support.tool_servers import tool_app

TODAY = date(2026, 11, 27)  # a Friday
CALL, ASK, NONE = "call", "ask", "none"

# Tools known by their schema only: what they take is the point, not what they return.
SCHEMA_ONLY = [
    ToolSpec(
        name="search_news",
        description="Search recent news articles by keyword (新闻搜索)",
        parameters={
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Keywords to search for"},
                "limit": {"type": "integer", "default": 5},
            },
            "required": ["query"],
        },
        source="mcp",
    ),
    ToolSpec(
        name="convert_units",
        description="Convert a length between kilometres and miles (公里 英里 换算)",
        parameters={
            "type": "object",
            "properties": {
                "value": {"type": "number", "description": "The length to convert"},
                "to": {
                    "type": "string",
                    "enum": ["km", "mi"],
                    "x-aliases": {
                        "km": ["kilometres", "kilometers", "公里"],
                        "mi": ["miles", "英里"],
                    },
                },
            },
            "required": ["value", "to"],
        },
        source="mcp",
    ),
    ToolSpec(
        name="loan_payment",
        description="Monthly payment of a loan or mortgage (贷款 房贷 月供)",
        parameters={
            "type": "object",
            "properties": {
                "principal": {"type": "number", "description": "Amount borrowed (贷款金额)"},
                "annual_rate": {
                    "type": "number",
                    "description": "Annual interest rate as a decimal fraction, e.g. 0.05 (年利率)",
                    "maximum": 1,
                },
                "years": {"type": "integer", "description": "Term in years (期限)"},
            },
            "required": ["principal", "annual_rate", "years"],
        },
        source="mcp",
    ),
    ToolSpec(
        name="savings_growth",
        description="What savings grow to at a yearly return (储蓄 增长 复利)",
        parameters={
            "type": "object",
            "properties": {
                "amount": {"type": "number", "description": "Amount saved (本金)"},
                "return_pct": {
                    "type": "number",
                    "description": "Yearly return in percent, 0-100 (年化收益率，百分比)",
                    "maximum": 100,
                },
                "years": {"type": "integer", "description": "How many years (年数)"},
                "monthly": {
                    "type": "boolean",
                    "description": "Compound monthly instead of yearly (按月复利)",
                    "default": False,
                },
            },
            "required": ["amount", "return_pct", "years"],
        },
        source="mcp",
    ),
]


@dataclass(frozen=True)
class Case:
    question: str
    kind: str  # CALL | ASK | NONE
    tool: str | None = None  # the operation or tool as its service names it
    arguments: dict[str, Any] = field(default_factory=dict)


def call(question: str, tool: str, **arguments: Any) -> Case:
    return Case(question, CALL, tool, arguments)


def ask(question: str) -> Case:
    return Case(question, ASK)


def none(question: str) -> Case:
    return Case(question, NONE)


def weather(question: str, city: str, day: str, units: str = "metric") -> Case:
    return call(question, "dailyWeather", city=city, date=day, units=units)


def todo(question: str, **arguments: str) -> Case:
    return call(question, "todo", **arguments)


CASES: list[Case] = [
    # The FX service: one enum parameter, codes and currency names, English and Chinese.
    call("What is the EUR exchange rate per USD?", "getFxRate", currency="EUR"),
    call("exchange rate of the yen", "getFxRate", currency="JPY"),
    call("How many pounds per dollar is the exchange rate?", "getFxRate", currency="GBP"),
    call("euro exchange rate", "getFxRate", currency="EUR"),
    call("GBP rate per dollar", "getFxRate", currency="GBP"),
    call("JPY exchange rate today", "getFxRate", currency="JPY"),
    call("how many yen do I get for one dollar right now?", "getFxRate", currency="JPY"),
    call("whats the exchnage rate for euros", "getFxRate", currency="EUR"),
    call("USD to GBP exchange rate please", "getFxRate", currency="GBP"),
    call("rate for the Japanese yen, please", "getFxRate", currency="JPY"),
    call("欧元汇率是多少？", "getFxRate", currency="EUR"),
    call("日元兑美元的汇率", "getFxRate", currency="JPY"),
    call("英镑汇率", "getFxRate", currency="GBP"),
    call("美元兑日元汇率现在多少", "getFxRate", currency="JPY"),
    call("请问英镑兑美元的汇率", "getFxRate", currency="GBP"),
    call("exchagne rate for teh euro", "getFxRate", currency="EUR"),
    call(
        "flying to Tokyo soon, what's the yen at against the dollar?", "getFxRate", currency="JPY"
    ),
    call("how much is one british pound in dollars", "getFxRate", currency="GBP"),
    ask("What is the exchange rate?"),
    ask("exchange rate of EUR or JPY"),
    ask("pound vs euro exchange rate"),
    ask("Swiss franc exchange rate"),
    ask("汇率是多少"),
    ask("欧元和英镑的汇率"),
    ask("dollar exchange rate"),
    ask("日元和欧元哪个汇率高"),
    # The weather service: a city and a date, units by default.
    weather("What was the weather in Paris on 2026-11-20?", "Paris", "2026-11-20"),
    weather("high temperature in Lyon yesterday", "Lyon", "2026-11-26"),
    weather("weather in New York on 2026-11-01", "New York", "2026-11-01"),
    weather("weather for Berlin today", "Berlin", "2026-11-27"),
    weather("imperial temperature in Boston yesterday", "Boston", "2026-11-26", "imperial"),
    weather("weather in Paris tomorrow", "Paris", "2026-11-28"),
    weather("What's the temperature in Berlin next Monday?", "Berlin", "2026-11-30"),
    weather("weather in Tokyo tomorrow in fahrenheit", "Tokyo", "2026-11-28", "imperial"),
    weather(
        "weather in San Francisco on 2026-11-20 in imperial units",
        "San Francisco",
        "2026-11-20",
        "imperial",
    ),
    weather("巴黎2026年11月20日的天气", "巴黎", "2026-11-20"),
    weather("北京昨天的天气", "北京", "2026-11-26"),
    weather("上海今天的气温", "上海", "2026-11-27"),
    weather("明天北京的天气", "北京", "2026-11-28"),
    weather("后天上海天气怎么样", "上海", "2026-11-29"),
    weather("下周一广州的气温", "广州", "2026-11-30"),
    weather("weather in Paris tommorow", "Paris", "2026-11-28"),
    weather("will it rain in London on Sunday?", "London", "2026-11-29"),
    weather("temperature in Rome next Friday in celsius", "Rome", "2026-12-04"),
    weather("下周三深圳的天气", "深圳", "2026-12-02"),
    ask("What is the weather in Paris?"),
    ask("weather yesterday"),
    ask("weather on 2026-11-20"),
    ask("明天的天气"),
    ask("Paris weather today and tomorrow"),
    ask("weather in Oslo next Monday or Tuesday"),
    # The Qianfan to-do plugin (Chinese): the operation is listed in a description.
    todo("插入待办事项：买牛奶", 操作="插入", 事项="买牛奶"),
    todo("查询待办事项", 操作="查询"),
    todo("插入一个待办事项：交报告", 操作="插入", 事项="交报告"),
    todo("删除待办事项：买牛奶", 操作="删除", 事项="买牛奶"),
    todo("帮我插入一条待办事项：周五前交报告", 操作="插入", 事项="周五前交报告"),
    todo("查看我的待办事项", 操作="查询"),
    todo("删除第2个待办事项", 操作="删除", 顺序="2"),
    todo("添加待办事项：给妈妈打电话", 操作="插入", 事项="给妈妈打电话"),
    todo("去掉待办事项：买牛奶", 操作="删除", 事项="买牛奶"),
    todo("帮我看看待办事项", 操作="查询"),
    todo("待办事项里加一条：周一开会", 操作="插入", 事项="周一开会"),
    todo("add 'buy milk' to my to-do list", 操作="插入", 事项="buy milk"),
    todo("show my todo list", 操作="查询"),
    ask("待办事项"),
    # The MCP server's two tools: closes of a symbol (read-only), filing a note.
    call("daily closes of ZZQX, limit 3", "closes", symbol="ZZQX", limit=3),
    call("show me the last 2 closes for ACME", "closes", symbol="ACME", limit=2),
    call("daily closing prices of ACME", "closes", symbol="ACME", limit=5),
    call("Apple's daily closes", "closes", symbol="AAPL", limit=5),
    call("贵州茅台的每日收盘价 closes", "closes", symbol="600519.SH", limit=5),
    call("closes of 600519.SH, limit 4", "closes", symbol="600519.SH", limit=4),
    call("file a note: call the broker", "add_note", text="call the broker"),
    call("add a note saying 'rebalance on Monday'", "add_note", text="rebalance on Monday"),
    call("what were ACME's last three closes?", "closes", symbol="ACME", limit=3),
    call("closing prices for Microsoft, limit 2", "closes", symbol="MSFT", limit=2),
    call("note this down: ACME beat estimates", "add_note", text="ACME beat estimates"),
    call("ACME的收盘价，取3条", "closes", symbol="ACME", limit=3),
    call("S&P 500 daily closes, limit 3", "closes", symbol="^GSPC", limit=3),
    call("标普500的每日收盘价", "closes", symbol="^GSPC", limit=5),
    call("记一条笔记：明天开会", "add_note", text="明天开会"),
    ask("daily closes of Apple and Microsoft"),
    ask("closes of AAPL and MSFT"),
    ask("daily closes"),
    ask("file a note"),
    # Schema-only tools: free text, numbers with units and scales, percents, booleans.
    call("search news about 'central bank'", "search_news", query="central bank", limit=5),
    call("search the news: oil prices", "search_news", query="oil prices", limit=5),
    call("新闻搜索：人民银行", "search_news", query="人民银行", limit=5),
    call('search 3 news articles about "tariffs"', "search_news", query="tariffs", limit=3),
    call("latest news about the Federal Reserve", "search_news", query="Federal Reserve", limit=5),
    call(
        "find 8 news articles regarding electric cars",
        "search_news",
        query="electric cars",
        limit=8,
    ),
    call("搜索关于新能源汽车的新闻", "search_news", query="新能源汽车", limit=5),
    call("convert 10 kilometres to miles", "convert_units", value=10, to="mi"),
    call("convert 26.2 miles to km", "convert_units", value=26.2, to="km"),
    call("convert 12 km to miles", "convert_units", value=12, to="mi"),
    call("convert 12km into miles please", "convert_units", value=12, to="mi"),
    call("convert 3,200 km to miles", "convert_units", value=3200, to="mi"),
    call("把1.5万公里换算成英里", "convert_units", value=15000, to="mi"),
    call("convert 5 to miles", "convert_units", value=5, to="mi"),
    call("how far is 100 miles in kilometers", "convert_units", value=100, to="km"),
    ask("convert half a marathon to km"),
    call("42 英里换算成公里", "convert_units", value=42, to="km"),
    ask("convert to kilometres"),
    ask("convert 10 miles to km and 5 km to miles"),
    call(
        "monthly payment on a $250,000 loan at 5% over 30 years",
        "loan_payment",
        principal=250000,
        annual_rate=0.05,
        years=30,
    ),
    call(
        "mortgage payment for 2.5 million at 4.2% for 20 years",
        "loan_payment",
        principal=2500000,
        annual_rate=0.042,
        years=20,
    ),
    call(
        "房贷300万，年利率3.5%，期限25年，月供多少",
        "loan_payment",
        principal=3000000,
        annual_rate=0.035,
        years=25,
    ),
    ask("loan payment at 5%"),
    call(
        "what's the payment on a 30-year mortgage of $400k at 6.5%?",
        "loan_payment",
        principal=400000,
        annual_rate=0.065,
        years=30,
    ),
    call(
        "loan of 1,000,000 at 5 percent for 15 years",
        "loan_payment",
        principal=1000000,
        annual_rate=0.05,
        years=15,
    ),
    call(
        "How much will $10,000 of savings grow to at 7% a year over 10 years?",
        "savings_growth",
        amount=10000,
        return_pct=7,
        years=10,
        monthly=False,
    ),
    call(
        "savings growth of 1亿 at 3% for 5 years, compounded monthly",
        "savings_growth",
        amount=100000000,
        return_pct=3,
        years=5,
        monthly=True,
    ),
    ask("savings growth at 4% in 2030"),
    call(
        "储蓄5万元，年化收益率2.5%，存3年能增长到多少",
        "savings_growth",
        amount=50000,
        return_pct=2.5,
        years=3,
        monthly=False,
    ),
    ask("what about 10000 at 5% for 10 years?"),
    # Questions for the data brain or nobody: no tool of these.
    none("Sharpe ratio of AAPL over 2023"),
    none("hello there"),
    none("苹果公司2023年的收益率"),
    none("Show the drawdown of the S&P 500"),
    none("tell me a joke"),
    none("画一下标普500指数2020年以来的走势"),
    # "rate" alone leans to the FX or the loan tool, never called without its arguments.
    ask("What is the unemployment rate in the US?"),
]


@dataclass
class Outcome:
    kind: str
    tool: str | None = None
    arguments: dict[str, Any] = field(default_factory=dict)
    sent: dict[str, Any] | None = None  # what the service received, for the real ones

    def right(self, case: Case) -> bool:
        return self.kind == CALL == case.kind and (self.tool, self.arguments) == (
            case.tool,
            case.arguments,
        )

    def wrong(self, case: Case) -> bool:
        """A call that reached (or would reach) a service with anything but what was asked."""
        if self.kind != CALL:
            return False
        return not self.right(case) or self.sent not in (None, case.arguments)


@dataclass
class QuestionTools:
    """The tools a question is read against, and how each service records what it got."""

    real: dict[str, Any]  # tool name → a callable tool (OpenAPI operation, MCP tool)
    short: dict[str, str]  # tool name → the name its service gives it
    received: dict[str, Callable[[], list[Any]]]  # short name → what its service got
    brain: OfflineBrain

    @property
    def specs(self) -> list[ToolSpec]:
        live = [
            ToolSpec(name=t.name, description=t.description, parameters=t.parameters, source="x")
            for t in self.real.values()
        ]
        return live + SCHEMA_ONLY

    async def outcome(self, question: str) -> Outcome:
        """Choose, fill from the question (with the entities the reader resolved), and call a
        real tool: the service's record of the call is kept beside the arguments."""
        choice = choose_tool(question, self.specs)
        if choice.status != "chosen" or choice.tool is None:
            return Outcome(NONE if choice.status == "none" else ASK)
        # What the faces pass on from the brain's answer: the entities and the names they had.
        context = QuestionContext(today=TODAY, brain="offline")
        intent = self.brain.understand_sync(question, context).intent
        entities = [e.id for e in intent.entities] if intent is not None else []
        ledger = intent.ledger.entries if intent is not None and intent.ledger is not None else []
        names = [e.text for e in ledger if e.reading == "entity"]
        spec = choice.tool
        filled = fill_arguments(
            question, spec.name, spec.parameters, TODAY, entities=entities, names=names
        )
        short = self.short.get(spec.name, spec.name)
        if filled.missing:
            return Outcome(ASK, short)
        sent = None
        if spec.name in self.real:
            before = len(self.received[short]())
            # The service's answer does not matter here (deleting an item it does not hold
            # fails there): what it received does.
            with suppress(Exception):
                await self.real[spec.name].call(filled.arguments)
            records = self.received[short]()
            sent = records[-1] if len(records) > before else {"nothing": "received"}
        return Outcome(CALL, short, filled.arguments, sent)


@contextmanager
def question_tools(brain: OfflineBrain | None = None) -> Iterator[QuestionTools]:
    """The FX and weather API, the to-do plugin and the MCP server on loopback, imported."""
    rates, plugin = tool_app(), plugin_app()
    mcp_app = mcp_quotes_server.quotes_server().streamable_http_app()
    with ExitStack() as stack:
        rates_base = stack.enter_context(live_server(rates))
        plugin_base = stack.enter_context(live_server(plugin))
        mcp_base = stack.enter_context(live_server(mcp_app, lifespan="on"))
        hosts = [b.removeprefix("http://") for b in (rates_base, plugin_base, mcp_base)]
        settings: Settings = get_settings().model_copy(update={"outbound_allow": hosts})
        policy = OutboundPolicy.from_entries(hosts)
        real: dict[str, Any] = {}
        short: dict[str, str] = {}
        for url in (f"{rates_base}/spec.json", f"{plugin_base}/plugins/todo/ai-plugin.json"):
            for op in read_openapi(SourceIn(url=url), policy).operations:
                tool = OpenAPITool(spec=op, settings=settings, policy=policy)
                real[tool.name], short[tool.name] = tool, op.operation
        source = SourceIn(kind="mcp", url=f"{mcp_base}/mcp", name="Quotes")
        name, _, spec, _ = read_mcp(source, policy)
        for tool in mcp_tools(name, spec, set(), AuthStored(), settings, None):
            real[tool.name], short[tool.name] = tool, tool.tool["name"]

        def queries(path: str) -> list[Any]:
            return [query for p, query in rates.state.seen if p == path]

        def mcp_calls(tool: str) -> list[Any]:
            return [args for name, args in mcp_quotes_server.CALLS if name == tool]

        received: dict[str, Callable[[], list[Any]]] = {
            "getFxRate": lambda: queries("/fx"),
            "dailyWeather": lambda: queries("/weather"),
            "todo": lambda: [body for *_, body in plugin.state.seen],
            "closes": lambda: mcp_calls("closes"),
            "add_note": lambda: mcp_calls("add_note"),
        }
        yield QuestionTools(real, short, received, brain or OfflineBrain())
