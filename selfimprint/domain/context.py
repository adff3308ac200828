"""Fast, extractive context assembly (spec §3.4, DESIGN.md §5 read path).

The main model never sees the graph: it sees a short text in the language of the user's latest
message, opened by one line telling it to use the context but not quote it. This module builds
that text from the ranked memories and their one-hop neighbourhood without any model call, so a
context is always available; the LLM prose summary (`selfimprint.prompts.context_summary`) is a
mode on top of it, and `prose_context` checks its answer against the same budget.

Layout, most useful first: causal chains ("A -> caused by B -> after C", spec §3.4 "preserve causal
chains intact"), people, other memories, open loops, then hypotheses under a tentative heading.
Memories are taken greedily by score (neighbours inherit a fraction of the score of the memory that
brought them in) and a memory is kept only if the whole text still fits the budget, so the result
never exceeds it.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Annotated, Final, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from selfimprint.domain.decay import ActivityTimeline, is_expired
from selfimprint.domain.models import Edge, EdgeType, MemoryId, Node, NodeType
from selfimprint.domain.recognition import SimilaritySpread, recognised
from selfimprint.domain.scoring import DEFAULT_SCORING, ScoredMemory, ScoringConfig
from selfimprint.domain.session_review import ReviewPrompt, ReviewSide


class _Value(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --- token estimate ----------------------------------------------------------------------------


class TokenEstimate(_Value):
    """Tokens per character class, set so the estimate does not undercount real tokenizers.

    Typical BPE vocabularies spend ~1 token per 4 ASCII characters of English, ~1 per 2.5-3
    characters of Russian (large multilingual vocabularies do better, small English-centric ones
    worse), one per CJK character, and split digits and punctuation finely. Each class gets the
    pessimistic end; the whole estimate is also never below `tokens_per_word` per word, which
    covers vocabularies that cut every word in pieces.
    """

    # Not in the spec (it budgets context in tokens, §3.4): measured tokenizer rates, above.
    ascii_letter: float = 1 / 4  # letters and spaces of English text
    cyrillic: float = 1 / 2.5  # Russian: ~1 token per 2.5-3 characters, the pessimistic end
    other_letter: float = 1 / 2  # accented Latin, Greek, Arabic, Hebrew, Indic...
    cjk: float = 1.0  # Han, kana, Hangul
    digit: float = 1.0  # tokenizers split numbers into one or few digits
    symbol: float = 1 / 2  # ASCII punctuation
    other: float = 1.0  # emoji, other symbols, newlines
    tokens_per_word: float = 1.3  # floor for vocabularies that cut every word in pieces


DEFAULT_TOKEN_ESTIMATE = TokenEstimate()


def _char_cost(char: str, estimate: TokenEstimate) -> float:
    if char.isascii():
        if char.isalpha() or char == " ":
            return estimate.ascii_letter
        if char.isdigit():
            return estimate.digit
        return estimate.symbol if char.isprintable() else estimate.other
    if "\u0400" <= char <= "\u04ff":
        return estimate.cyrillic
    name = unicodedata.name(char, "")
    if name.startswith(("CJK", "HIRAGANA", "KATAKANA", "HANGUL")):
        return estimate.cjk
    if char.isalpha():
        return estimate.other_letter
    return estimate.other


def count_tokens(text: str, estimate: TokenEstimate = DEFAULT_TOKEN_ESTIMATE) -> int:
    """A conservative token count without a tokenizer:

        ceil(max(sum of per-character costs, words × 1.3))

    with costs 1/4 per ASCII letter or space, 1/2.5 per Cyrillic letter, 1/2 per other letter or
    ASCII punctuation mark, 1 per digit, CJK character, emoji or newline (see `TokenEstimate`). It
    overestimates most real tokenizers, which is the safe side for a budget.
    """
    if not text:
        return 0
    by_chars = sum(_char_cost(char, estimate) for char in text)
    by_words = len(text.split()) * estimate.tokens_per_word
    return math.ceil(max(by_chars, by_words) - 1e-9)


# --- templates ---------------------------------------------------------------------------------


class _Template(NamedTuple):
    instruction: str
    chains: str
    people: str
    known: str
    open_loops: str
    tentative: str
    caused_by: str
    followed_by: str
    tentative_marker: str
    question: str  # format string with {topic}
    # The session review (epistemic-memory article, component 8): a heading telling the main
    # model to ask, then the question itself, put to the user in their language.
    review: str
    review_question: str
    review_sure: str
    review_unsure: str
    # The monthly summary (spec §3.5, "pushed, not only pulled"): format string with {month}.
    summary_ready: str
    # Issue 33: what a later statement of the user's ended, shown as history, never as current;
    # `until` is a format string with {date} (YYYY-MM-DD).
    past: str
    until: str


_TEMPLATES: Final[Mapping[str, _Template]] = {
    "en": _Template(
        instruction=(
            "Background on the user from memory: use it to shape your reply, "
            "but do not quote it or mention that you have it."
        ),
        chains="How things connect",
        people="People",
        known="Known",
        open_loops="Unresolved",
        tentative="Tentative, unconfirmed",
        caused_by="caused by",
        followed_by="after",
        tentative_marker="(tentative)",
        question="Any news on this: {topic}?",
        review="Ask the user first",
        review_question="Before we go on: am I right about you here?",
        review_sure="sure",
        review_unsure="unsure",
        summary_ready=(
            "A summary of what you remember about the user for {month} is ready: offer to "
            "show it; they can correct or delete any entry."
        ),
        past="No longer true (history)",
        until="(until {date})",
    ),
    "ru": _Template(
        instruction=(
            "Справка о пользователе из памяти: учитывай её в ответе, "
            "но не цитируй и не упоминай, что она у тебя есть."
        ),
        chains="Связи",
        people="Люди",
        known="Известно",
        open_loops="Не решено",
        tentative="Предположения, не подтверждены",
        caused_by="из-за",
        followed_by="после",
        tentative_marker="(предположение)",
        question="Есть новости по этому поводу: {topic}?",
        review="Сначала спроси пользователя",
        review_question="Прежде чем продолжим: я верно о вас думаю?",
        review_sure="уверен",
        review_unsure="не уверен",
        summary_ready=(
            "Готова сводка того, что ты помнишь о пользователе за {month}: предложи её "
            "показать; любую запись можно исправить или удалить."
        ),
        past="Уже неверно (история)",
        until="(до {date})",
    ),
    "uk": _Template(
        instruction=(
            "Довідка про користувача з пам'яті: враховуй її у відповіді, "
            "але не цитуй і не згадуй, що вона в тебе є."
        ),
        chains="Зв'язки",
        people="Люди",
        known="Відомо",
        open_loops="Не вирішено",
        tentative="Припущення, не підтверджені",
        caused_by="через",
        followed_by="після",
        tentative_marker="(припущення)",
        question="Є новини щодо цього: {topic}?",
        review="Спершу запитай користувача",
        review_question="Перш ніж продовжимо: я правильно про вас думаю?",
        review_sure="впевнений",
        review_unsure="не впевнений",
        summary_ready=(
            "Готовий підсумок того, що ти пам'ятаєш про користувача за {month}: запропонуй "
            "його показати; будь-який запис можна виправити або видалити."
        ),
        past="Вже неправда (історія)",
        until="(до {date})",
    ),
}
FALLBACK_LANGUAGE: Final = "en"


def template_language(language: str) -> str:
    """The language the context's fixed text is written in: the target, or English."""
    return language if language in _TEMPLATES else FALLBACK_LANGUAGE


def instruction_line(language: str) -> str:
    """The opening line telling the main model to use the context but not quote it."""
    return _TEMPLATES[template_language(language)].instruction


# --- configuration and result ------------------------------------------------------------------


class ContextConfig(_Value):
    # Spec §3.4: the main model sees a 400-token summary.
    budget_tokens: Annotated[int, Field(ge=1)] = 400
    # Project choice: a neighbour is context for the memory that brought it in, so it ranks
    # below it; half its score keeps strong neighbours above weak candidates.
    neighbour_score_factor: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    # Project choice: open-loop questions are a line each for the main model to weave in.
    max_question_chars: Annotated[int, Field(ge=20)] = 160
    # Project choice: how the budget counts tokens without a tokenizer (see TokenEstimate).
    token_estimate: TokenEstimate = DEFAULT_TOKEN_ESTIMATE
    # Project choice: a review line per belief, short enough for six of them in 400 tokens.
    max_review_item_chars: Annotated[int, Field(ge=20)] = 90
    # Spec §3.5.1 ("candidate questions", prepared each sleep): a question is served while the
    # sleeps keep preparing it; one no sleep re-prepared for this long is stale (project choice:
    # a week covers a light pass every day and a user away for a few days).
    prepared_question_max_age: timedelta = timedelta(days=7)
    # Project choice: as many prepared questions as a sleep prepares (TriggerConfig.max_questions).
    max_prepared_questions: Annotated[int, Field(ge=0)] = 5
    # Project choice: the session review (article, component 8) is the question of the session
    # it opened in. The context asks it for this long after it opened (a conversation resumed
    # the next day included), then stops, so an ignored review does not close every reply until
    # the next one, ten sessions later; it stays answerable through the API.
    review_offer_window: timedelta = timedelta(days=2)
    # Issue 33, project choice: a memory a later statement ended (Node.valid_until) ranks at
    # this share of its score, so the current value comes first; it is shown as past.
    superseded_score_factor: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    # Issue 36, project choice: the user's messages not yet extracted (read your writes) take at
    # most this share of the budget, so a burst of messages leaves room for what is remembered.
    pending_budget_share: Annotated[float, Field(ge=0.0, le=1.0)] = 0.5
    # Issue 36, project choice: the newest messages only; older ones are minutes old at most
    # while extraction keeps up, and the memories hold what came before.
    max_pending_messages: Annotated[int, Field(ge=0)] = 10
    # Issue 36, project choice: a message cut to fit keeps at least this many characters; a few
    # words out of their sentence mislead more than they help.
    min_pending_chars: Annotated[int, Field(ge=1)] = 24


DEFAULT_CONTEXT = ContextConfig()


class UsedMemory(_Value):
    id: MemoryId
    type: NodeType
    content: str
    score: float
    sources: tuple[MemoryId, ...]
    # Faded, and brought back by the query's recognition (issue 32): this use is a recall.
    recalled: bool = False


class PreparedQuestion(_Value):
    """A question the sleep prepared for an open loop or an upcoming event (spec §3.5.1,
    operation 6), whose time has come (the store's filter)."""

    id: MemoryId
    question: str
    node_id: MemoryId


class AssembledContext(_Value):
    """The context for the main model. `text` is empty when neither a memory nor the review
    fits."""

    text: str
    memories_used: tuple[UsedMemory, ...]
    open_loop_questions: tuple[str, ...]
    tokens: int
    language: str
    # The language of the fixed text: `language`, or English when no template exists for it.
    template_language: str
    language_fallback: bool
    # The open session review, whether or not its block fitted the text; `closing_text` is what
    # closes `text`: the messages not yet processed, the review's question and the monthly
    # summary's notice ("" when none is due or they did not fit).
    review: ReviewPrompt | None = None
    closing_text: str = ""
    summary_month: str | None = None
    # The block of messages not yet extracted (`pending_messages`), as kept in `closing_text`.
    pending_text: str = ""


# --- assembly ----------------------------------------------------------------------------------

_CHAIN_TYPES: Final = (EdgeType.CAUSED_BY, EdgeType.FOLLOWED_BY)


def _is_tentative(node: Node) -> bool:
    return node.is_inference or node.type is NodeType.HYPOTHESIS


def _one_line(text: str) -> str:
    return " ".join(text.split())


_Chain = tuple[Node, list[tuple[Edge, Node]]]


def _chains(selected: Sequence[Node], edges: Sequence[Edge]) -> list[_Chain]:
    """Linear chains along caused_by / followed_by edges among the selected memories.

    Each memory gets at most one link out and one in, caused_by before followed_by, higher
    confidence first; a link that would close a cycle is skipped. A chain is its head and the
    (edge, node) steps that follow it, in the order of the selection (best score first).
    """
    by_id = {n.id: n for n in selected}
    usable = sorted(
        (
            e
            for e in edges
            if e.type in _CHAIN_TYPES and e.source_id in by_id and e.target_id in by_id
        ),
        key=lambda e: (_CHAIN_TYPES.index(e.type), -e.confidence, e.source_id, e.target_id),
    )
    root = {node_id: node_id for node_id in by_id}

    def find(node_id: str) -> str:
        while root[node_id] != node_id:
            node_id = root[node_id]
        return node_id

    outgoing: dict[str, Edge] = {}
    incoming: set[str] = set()
    for edge in usable:
        if edge.source_id in outgoing or edge.target_id in incoming:
            continue
        a, b = find(edge.source_id), find(edge.target_id)
        if a == b:
            continue
        root[a] = b
        outgoing[edge.source_id] = edge
        incoming.add(edge.target_id)
    chains = []
    for head in selected:
        if head.id in incoming or head.id not in outgoing:
            continue
        steps: list[tuple[Edge, Node]] = []
        current = head.id
        while current in outgoing:
            edge = outgoing[current]
            steps.append((edge, by_id[edge.target_id]))
            current = edge.target_id
        chains.append((head, steps))
    return chains


def _label(node: Node, template: _Template) -> str:
    content = _one_line(node.content)
    if node.valid_until is not None:
        return f"{content} {template.until.format(date=node.valid_until.date().isoformat())}"
    return f"{content} {template.tentative_marker}" if _is_tentative(node) else content


def _render(
    selected: Sequence[Node], edges: Sequence[Edge], template: _Template
) -> tuple[str, list[Node]]:
    """The body text for the selected memories, and the open loops it contains."""
    chains = _chains(selected, edges)
    in_chains = {head.id for head, _ in chains} | {
        node.id for _, steps in chains for _, node in steps
    }
    sections: dict[str, list[str]] = {
        template.chains: [],
        template.people: [],
        template.known: [],
        template.open_loops: [],
        template.tentative: [],
        template.past: [],
    }
    for head, steps in chains:
        parts = [_label(head, template)]
        for edge, node in steps:
            link = template.caused_by if edge.type is EdgeType.CAUSED_BY else template.followed_by
            parts.append(f"{link} {_label(node, template)}")
        sections[template.chains].append(" -> ".join(parts))
    open_loops = []
    for node in selected:
        if node.type is NodeType.OPEN_LOOP and node.valid_until is None:
            open_loops.append(node)  # an ended plan is not a question to ask about
        if node.id in in_chains:
            continue
        if node.valid_until is not None:
            sections[template.past].append(_label(node, template))
            continue
        if _is_tentative(node):
            section = template.tentative
        elif node.type is NodeType.PERSON:
            section = template.people
        elif node.type is NodeType.OPEN_LOOP:
            section = template.open_loops
        else:
            section = template.known
        sections[section].append(_one_line(node.content))
    lines = []
    for heading, items in sections.items():
        if items:
            lines.append(f"{heading}:")
            lines.extend(f"- {item}" for item in items)
    return "\n".join(lines), open_loops


def _nearest_ids(ranked: Sequence[ScoredMemory], count: int | None) -> frozenset[str] | None:
    """The `count` candidates nearest the query by similarity (ties by id); None: no limit."""
    if count is None:
        return None
    by_similarity = sorted(ranked, key=lambda m: (-m.similarity, m.id))
    return frozenset(m.id for m in by_similarity[:count])


def _pool(
    ranked: Sequence[ScoredMemory],
    nodes: Iterable[Node],
    neighbours: Iterable[Node],
    edges: Sequence[Edge],
    now: datetime,
    config: ContextConfig,
    timeline: ActivityTimeline | None,
    scoring: ScoringConfig,
    spread: SimilaritySpread | None,
) -> list[tuple[float, Node, bool]]:
    """Every memory that may enter the context with its score, best first, ties by id; the
    flag marks a faded memory that only holds its room (`ScoringConfig.faded_hold_room`)."""

    def alive(node: Node) -> bool:
        # Decayed below the removal threshold: faded, out of the default pool (issue 32).
        return not is_expired(node, now, timeline=timeline)

    found = {n.id: n for n in nodes}
    # A faded candidate stays only when the query recognises it (a strong match; with
    # `recognition_max_rank`, also among the nearest candidates); a faded neighbour never
    # comes back through its link alone.
    nearest = _nearest_ids(ranked, scoring.recognition_max_rank)
    known = {
        m.id: found[m.id]
        for m in ranked
        if m.id in found
        and (
            alive(found[m.id])
            or (
                (nearest is None or m.id in nearest)
                and recognised(
                    m.similarity, found[m.id].type, scoring, found[m.id].valence, spread, m.lexical
                )
            )
        )
    }
    held: dict[str, tuple[float, Node]] = {}
    if scoring.faded_hold_room:
        for memory in ranked:
            node = found.get(memory.id)
            if node is not None and memory.id not in known and not alive(node):
                held[memory.id] = (memory.score, node)
    scores: dict[str, float] = {}
    for memory in ranked:
        if memory.id in known:
            score = memory.score
            if not alive(known[memory.id]):
                score *= scoring.recognised_score_factor
            if known[memory.id].valid_until is not None:
                score *= config.superseded_score_factor  # the current value comes first
            scores[memory.id] = max(scores.get(memory.id, 0.0), score)
    extra = {n.id: n for n in neighbours if alive(n) and n.id not in scores}
    for edge in edges:
        for near, far in ((edge.source_id, edge.target_id), (edge.target_id, edge.source_id)):
            if near in scores and far in extra:
                inherited = scores[near] * config.neighbour_score_factor
                scores[far] = max(scores.get(far, 0.0), inherited)
    by_id = known | extra
    entries = [(score, by_id[node_id], False) for node_id, score in scores.items()]
    entries += [(score, node, True) for score, node in held.values()]
    return sorted(entries, key=lambda entry: (-entry[0], entry[1].id))


def _shown(node: Node, chosen: Sequence[Node]) -> bool:
    """Whether a chosen memory made from the same message already shows all of this one's
    words: a span of a message (the person "my sister Anna", a cause) beside the whole sentence
    spends the budget on text the context already holds."""
    words = _one_line(node.content).casefold()
    sources = set(node.sources)
    return any(
        other.id != node.id
        and sources.intersection(other.sources)
        and words in _one_line(other.content).casefold()
        for other in chosen
    )


def _question(node: Node, template: _Template, limit: int) -> str:
    topic = _one_line(node.content)
    question = topic if topic.endswith("?") else template.question.format(topic=topic.rstrip(".!"))
    if len(question) <= limit:
        return question
    return question[: limit - 2].rstrip() + "…?"


def _shortened(text: str, limit: int) -> str:
    flat = _one_line(text)
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _review_block(review: ReviewPrompt, template: _Template, config: ContextConfig) -> str:
    """The review as a question for the user, most confident beliefs first."""
    lines = [f"{template.review}:", template.review_question]
    for item in review.items:
        how = template.review_sure if item.side is ReviewSide.HIGHEST else template.review_unsure
        lines.append(f"- {_shortened(item.content, config.max_review_item_chars)} ({how})")
    return "\n".join(lines)


def _prepared_questions(
    prepared: Sequence[PreparedQuestion],
    open_loops: Sequence[Node],
    asked: Sequence[str],
    config: ContextConfig,
) -> tuple[str, ...]:
    """Prepared questions the context does not already ask: not about an open loop it holds
    (that one is asked in the user's language), not the same text twice."""
    covered = {n.id for n in open_loops}
    seen = set(asked)
    kept = []
    for question in prepared[: config.max_prepared_questions]:
        text = _shortened(question.question, config.max_question_chars)
        if question.node_id in covered or text in seen:
            continue
        seen.add(text)
        kept.append(text)
    return tuple(kept)


def _closing(
    instruction: str,
    pending_text: str,
    prompts: Sequence[str],
    budget: int,
    estimate: TokenEstimate,
) -> str:
    """What closes the text, when it fits beside the instruction line: the messages not yet
    processed, then the review and the summary's notice. The prompts give way first (the
    response's `review` and `monthly_summary` fields still carry them): what the user just
    said is what the next reply is about."""
    for parts in ((pending_text, *prompts), (pending_text,)):
        closing = "\n".join(p for p in parts if p)
        if not closing or count_tokens(f"{instruction}\n{closing}", estimate) <= budget:
            return closing
    return ""


def assemble_context(
    ranked: Sequence[ScoredMemory],
    nodes: Sequence[Node],
    neighbours: Sequence[Node],
    edges: Sequence[Edge],
    *,
    language: str,
    now: datetime,
    budget_tokens: int | None = None,
    timeline: ActivityTimeline | None = None,
    config: ContextConfig = DEFAULT_CONTEXT,
    review: ReviewPrompt | None = None,
    prepared: Sequence[PreparedQuestion] = (),
    summary_month: str | None = None,
    scoring: ScoringConfig = DEFAULT_SCORING,
    spread: SimilaritySpread | None = None,
    pending_text: str = "",
) -> AssembledContext:
    """Assemble the extractive context (spec §3.4) within `budget_tokens` (config default 400).

    - `ranked`: `scoring.rank` output; `nodes`: the Nodes of those memories (any order; ranked
      ids without a node are skipped).
    - `neighbours`, `edges`: the one-hop expansion (`RetrievalResult.neighbours` / `.edges`).
    - `language`: of the user's latest message (`language.detect_language`).
    - `timeline`: the user's decay clock (expiry is read on it, spec §3.8.1).
    - `scoring`, `spread`: a faded (expired) candidate is kept only when the query recognises it
      (`recognition.recognised`, issue 32); `spread` is `RetrievalResult.spread`.
    - `review`: the open session review; its block closes the text and is placed first, so
      memories fill what budget it leaves (the review is the article's enforcement mechanism).
    - `prepared`: the sleep's questions whose time has come, joined to `open_loop_questions`.
    - `summary_month`: a monthly summary the user has not seen yet ("YYYY-MM"): a notice after
      the review tells the main model to offer it.
    - `pending_text`: the user's messages not yet extracted (`pending_messages.pending_block`,
      sized to fit beside the instruction line); it comes before the review and the notice,
      which give way to it when both do not fit.
    """
    budget = config.budget_tokens if budget_tokens is None else budget_tokens
    used_language = template_language(language)
    template = _TEMPLATES[used_language]
    estimate = config.token_estimate
    pool = _pool(ranked, nodes, neighbours, edges, now, config, timeline, scoring, spread)
    asked = _review_block(review, template, config) if review else ""
    notice = template.summary_ready.format(month=summary_month) if summary_month else ""
    closing = _closing(template.instruction, pending_text, (asked, notice), budget, estimate)
    chosen: list[tuple[float, Node]] = []
    text = f"{template.instruction}\n{closing}" if closing else ""
    open_loops: list[Node] = []
    held = 0  # tokens the rooms of faded memories take (`ScoringConfig.faded_hold_room`)
    for score, node, holds_room in pool:
        if _shown(node, [n for _, n in chosen]):
            continue
        if holds_room:
            line = count_tokens(f"- {_one_line(node.content)}", estimate)
            if count_tokens(text, estimate) + held + line <= budget:
                held += line
            continue
        # A fuller memory of the same message takes the place of a span of it already chosen.
        kept = [c for c in chosen if not _shown(c[1], [node])]
        trial = [*kept, (score, node)]
        body, trial_loops = _render([n for _, n in trial], edges, template)
        trial_text = "\n".join(p for p in (template.instruction, body, closing) if p)
        if count_tokens(trial_text, estimate) + held <= budget:
            chosen, text, open_loops = trial, trial_text, trial_loops
    questions = tuple(_question(node, template, config.max_question_chars) for node in open_loops)
    return AssembledContext(
        text=text,
        memories_used=tuple(
            UsedMemory(
                id=node.id,
                type=node.type,
                content=node.content,
                score=score,
                sources=node.sources,
                recalled=is_expired(node, now, timeline=timeline),
            )
            for score, node in chosen
        ),
        open_loop_questions=questions
        + _prepared_questions(prepared, open_loops, questions, config),
        tokens=count_tokens(text, estimate),
        language=language,
        template_language=used_language,
        language_fallback=used_language != language,
        review=review,
        closing_text=closing,
        summary_month=summary_month,
        pending_text=pending_text if closing.startswith(pending_text) else "",
    )


def prose_context(
    extractive: AssembledContext,
    prose: str,
    *,
    budget_tokens: int | None = None,
    config: ContextConfig = DEFAULT_CONTEXT,
) -> AssembledContext | None:
    """The LLM's prose summary as the context, or None when it is empty or over the budget (the
    caller then keeps the extractive context)."""
    budget = config.budget_tokens if budget_tokens is None else budget_tokens
    body = prose.strip()
    if not body or not extractive.text:
        return None
    # The review is asked in prose mode too: its block closes the text as in the extractive one.
    parts = (instruction_line(extractive.template_language), body, extractive.closing_text)
    text = "\n".join(p for p in parts if p)
    tokens = count_tokens(text, config.token_estimate)
    if tokens > budget:
        return None
    return extractive.model_copy(update={"text": text, "tokens": tokens})


def prose_budget(
    language: str,
    budget_tokens: int | None = None,
    config: ContextConfig = DEFAULT_CONTEXT,
    *,
    closing_text: str = "",
) -> int:
    """Tokens left for a prose summary once the instruction line and the closing text (the
    review's question, the summary's notice: `prose_context` keeps both) are counted; a summary
    written to the full budget would be refused as over it."""
    budget = config.budget_tokens if budget_tokens is None else budget_tokens
    fixed = f"{instruction_line(language)}\n" + (f"\n{closing_text}" if closing_text else "")
    return max(budget - count_tokens(fixed, config.token_estimate), 0)
