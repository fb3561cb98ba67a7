-- ohara-lab atlas schema (SQLite). Collections are tables; `data` holds the full
-- record as JSON, the other columns exist to be indexed and queried.
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS documents (
    id                    TEXT PRIMARY KEY,
    file_hash             TEXT NOT NULL UNIQUE,
    origin_path           TEXT,
    title                 TEXT,
    published_date        TEXT,
    coverage_start        TEXT,
    coverage_end          TEXT,
    date_lo               TEXT,    -- earliest day the document speaks of (YYYY-MM-DD), for date filters
    date_hi               TEXT,    -- latest day
    decay_class           TEXT,
    effective_decay_class TEXT,
    ingestion_status      TEXT NOT NULL,
    structure_needs_review INTEGER NOT NULL DEFAULT 0,
    similar_to_indegree   INTEGER NOT NULL DEFAULT 0,
    data                  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS documents_origin ON documents(origin_path);

CREATE TABLE IF NOT EXISTS sections (
    id                TEXT PRIMARY KEY,
    document_id       TEXT NOT NULL,
    parent_section_id TEXT,
    level             INTEGER NOT NULL,
    doc_position      INTEGER NOT NULL,
    title             TEXT NOT NULL,
    data              TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sections_doc ON sections(document_id, doc_position);

CREATE TABLE IF NOT EXISTS paragraphs (
    id           TEXT PRIMARY KEY,
    document_id  TEXT NOT NULL,
    section_id   TEXT,
    node_type    TEXT NOT NULL,
    doc_position INTEGER NOT NULL,
    content      TEXT NOT NULL,
    llm_pending  INTEGER NOT NULL DEFAULT 0,
    data         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS paragraphs_doc ON paragraphs(document_id, doc_position);
CREATE INDEX IF NOT EXISTS paragraphs_section ON paragraphs(section_id);

CREATE TABLE IF NOT EXISTS tables (
    id           TEXT PRIMARY KEY,
    document_id  TEXT NOT NULL,
    section_id   TEXT,
    doc_position INTEGER NOT NULL,
    markdown     TEXT NOT NULL,
    data         TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tables_doc ON tables(document_id, doc_position);

CREATE TABLE IF NOT EXISTS entities (
    id            TEXT PRIMARY KEY,
    slug          TEXT NOT NULL UNIQUE,
    norm_key      TEXT NOT NULL,
    name          TEXT NOT NULL,
    type          TEXT NOT NULL,
    mention_count INTEGER NOT NULL DEFAULT 0,
    data          TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS entities_norm ON entities(norm_key);

-- Every name and alias of an entity by norm_key, for matching query n-grams.
CREATE TABLE IF NOT EXISTS entity_names (
    norm_key TEXT NOT NULL,
    slug     TEXT NOT NULL,
    PRIMARY KEY (norm_key, slug)
);

-- One table for every relation; the uniqueness rule makes duplicate edges impossible.
CREATE TABLE IF NOT EXISTS edges (
    rowid       INTEGER PRIMARY KEY,
    from_id     TEXT NOT NULL,
    to_id       TEXT NOT NULL,
    relation    TEXT NOT NULL,
    document_id TEXT,              -- owner document (NULL for atlas-level edges)
    attrs       TEXT NOT NULL DEFAULT '{}',
    UNIQUE (from_id, to_id, relation)
);
CREATE INDEX IF NOT EXISTS edges_to ON edges(to_id, relation);
CREATE INDEX IF NOT EXISTS edges_rel ON edges(relation);
CREATE INDEX IF NOT EXISTS edges_doc ON edges(document_id);
-- The Explorer's walk seeks SIMILAR_TO edges by one end and weight (sqlite_search._similar_edges):
-- it reads only the edges heavy enough to stay in its band instead of every edge of a node and its JSON.
CREATE INDEX IF NOT EXISTS edges_similar_from
    ON edges(from_id, CAST(json_extract(attrs, '$.weight') AS REAL)) WHERE relation = 'SIMILAR_TO';
CREATE INDEX IF NOT EXISTS edges_similar_to
    ON edges(to_id, CAST(json_extract(attrs, '$.weight') AS REAL)) WHERE relation = 'SIMILAR_TO';

-- Side tables that make tag overlap and entity pivots plain indexed SQL.
CREATE TABLE IF NOT EXISTS node_tags (
    node_id     TEXT NOT NULL,
    document_id TEXT NOT NULL,
    tag         TEXT NOT NULL,
    PRIMARY KEY (node_id, tag)
);
CREATE INDEX IF NOT EXISTS node_tags_tag ON node_tags(tag);
CREATE INDEX IF NOT EXISTS node_tags_doc ON node_tags(document_id);

CREATE TABLE IF NOT EXISTS node_entities (
    node_id     TEXT NOT NULL,
    document_id TEXT NOT NULL,
    slug        TEXT NOT NULL,
    type        TEXT NOT NULL,
    PRIMARY KEY (node_id, slug)
);
CREATE INDEX IF NOT EXISTS node_entities_slug ON node_entities(slug, document_id);
CREATE INDEX IF NOT EXISTS node_entities_doc ON node_entities(document_id);

-- Questions a paragraph answers (spec §2.13): paragraphs sharing a normalised question get
-- ANSWERS_SAME edges both ways, written with the document that brings the second one.
CREATE TABLE IF NOT EXISTS node_questions (
    node_id     TEXT NOT NULL,
    document_id TEXT NOT NULL,
    norm        TEXT NOT NULL,
    question    TEXT NOT NULL,
    PRIMARY KEY (node_id, norm)
);
CREATE INDEX IF NOT EXISTS node_questions_norm ON node_questions(norm);
CREATE INDEX IF NOT EXISTS node_questions_doc ON node_questions(document_id);

-- Per-document entity co-occurrence; RELATED_TO counts are their sums.
CREATE TABLE IF NOT EXISTS cooccur (
    document_id TEXT NOT NULL,
    a           TEXT NOT NULL,
    b           TEXT NOT NULL,
    n           INTEGER NOT NULL,
    PRIMARY KEY (document_id, a, b)
);
CREATE INDEX IF NOT EXISTS cooccur_pair ON cooccur(a, b);

CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    text,
    node_id UNINDEXED,
    collection UNINDEXED,
    document_id UNINDEXED,
    tokenize = 'porter unicode61 remove_diacritics 2'
);

CREATE TABLE IF NOT EXISTS vectors (
    node_id     TEXT NOT NULL,
    model       TEXT NOT NULL,
    document_id TEXT NOT NULL,
    dim         INTEGER NOT NULL,
    vec         BLOB NOT NULL,
    PRIMARY KEY (node_id, model)
);
CREATE INDEX IF NOT EXISTS vectors_doc ON vectors(document_id);

CREATE TABLE IF NOT EXISTS feedback (
    rowid      INTEGER PRIMARY KEY,
    ts         TEXT NOT NULL,
    query      TEXT NOT NULL,
    query_hash TEXT NOT NULL,
    node_id    TEXT NOT NULL,
    rank       INTEGER,
    signal     TEXT NOT NULL CHECK (signal IN ('positive', 'negative'))
);
CREATE INDEX IF NOT EXISTS feedback_node ON feedback(node_id);

-- Web crawl state (spec §1.1 `crawl`): one row per canonical URL; `seq` keeps discovery order.
CREATE TABLE IF NOT EXISTS crawl (
    seq   INTEGER PRIMARY KEY,
    url   TEXT NOT NULL UNIQUE,
    host  TEXT NOT NULL,
    state TEXT NOT NULL,
    depth INTEGER NOT NULL,
    run   INTEGER NOT NULL,
    data  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS crawl_run ON crawl(run, state);
CREATE INDEX IF NOT EXISTS crawl_host ON crawl(host);

-- Entity curation (merge, split, rename, clean, dedup): one row per step with the
-- state it replaced, so `undo` restores it exactly; `undone_at` marks undone steps.
CREATE TABLE IF NOT EXISTS entity_merges (
    id        INTEGER PRIMARY KEY,
    op        TEXT NOT NULL,
    ts        TEXT NOT NULL,
    actor     TEXT NOT NULL,
    reason    TEXT NOT NULL DEFAULT '',
    target    TEXT,
    sources   TEXT NOT NULL,   -- JSON list of slugs
    before    TEXT NOT NULL,   -- JSON {"entities": [...], "nodes": [...]}
    undone_at TEXT,
    undone_by TEXT
);

-- Where later mentions of a curated slug go at ingest: node_id '' = every node,
-- to_slug NULL = dropped; from_key (the slug's norm_key) catches spelling variants.
CREATE TABLE IF NOT EXISTS entity_routes (
    op_id     INTEGER NOT NULL,
    node_id   TEXT NOT NULL DEFAULT '',
    from_slug TEXT NOT NULL,
    from_key  TEXT NOT NULL,
    to_slug   TEXT,
    PRIMARY KEY (node_id, from_slug)
);
CREATE INDEX IF NOT EXISTS entity_routes_key ON entity_routes(from_key);
CREATE INDEX IF NOT EXISTS entity_routes_op ON entity_routes(op_id);

-- Entity lists of nodes written after a step, as extracted before its routes applied (for its undo).
CREATE TABLE IF NOT EXISTS routed_nodes (
    op_id       INTEGER NOT NULL,
    node_id     TEXT NOT NULL,
    document_id TEXT NOT NULL,
    data        TEXT NOT NULL,
    PRIMARY KEY (op_id, node_id)
);
CREATE INDEX IF NOT EXISTS routed_nodes_doc ON routed_nodes(document_id);

-- Cross-document links (SIMILAR_TO, CONTRADICTS, PRECEDES) of a document re-ingested while a
-- step routed its mentions: as they were first (old) and as that re-ingest wrote them (new).
CREATE TABLE IF NOT EXISTS routed_links (
    op_id       INTEGER NOT NULL,
    document_id TEXT NOT NULL,
    old         TEXT NOT NULL,
    new         TEXT NOT NULL,
    PRIMARY KEY (op_id, document_id)
);

-- Graph analytics (communities, clusters, Adamic-Adar, knowledge gaps): rows per kind,
-- replaced as a whole by each `analyze`; the run's graph_version sits in meta.
CREATE TABLE IF NOT EXISTS analytics (
    kind  TEXT NOT NULL,
    key   TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (kind, key)
);
