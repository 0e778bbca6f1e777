//! What the store knows of each node apart from its conversation: the `nodes` row (its names,
//! first and last heard, the LLM calls and tokens spent on it), and `meshai stats`' numbers
//! over every node.

use rusqlite::{Connection, params};

use super::error::StoreError;
use super::handle::Store;
use super::sql::{counter, counter_sql, node_sql};
use super::types::NodeStats;
use crate::node::NodeId;

impl Store {
    /// Records that `node` was heard at `at`; names given as `None` keep their stored value.
    pub async fn touch_node(
        &self,
        node: NodeId,
        long_name: Option<String>,
        short_name: Option<String>,
        at: i64,
    ) -> Result<(), StoreError> {
        self.call(move |c| touch_node(c, node, long_name.as_deref(), short_name.as_deref(), at))
            .await
    }

    /// Counts one LLM call made for `node` and its token usage, on its own. The daemon counts
    /// usage with the reply it belongs to ([`Store::append_reply`]); tests seed numbers with it.
    #[cfg(test)]
    pub(crate) async fn record_usage(
        &self,
        node: NodeId,
        prompt_tokens: u64,
        completion_tokens: u64,
    ) -> Result<(), StoreError> {
        self.call(move |c| record_usage(c, node, prompt_tokens, completion_tokens))
            .await
    }

    /// Numbers for every node that has a stats row, messages or a summary, most recently
    /// seen first.
    pub async fn stats(&self) -> Result<Vec<NodeStats>, StoreError> {
        self.call(|c| stats(c)).await
    }
}

pub(super) fn touch_node(
    c: &Connection,
    node: NodeId,
    long_name: Option<&str>,
    short_name: Option<&str>,
    at: i64,
) -> Result<(), StoreError> {
    c.prepare_cached(
        "INSERT INTO nodes(node, long_name, short_name, first_seen, last_seen)
         VALUES (?1, ?2, ?3, ?4, ?4)
         ON CONFLICT(node) DO UPDATE SET
             long_name = coalesce(excluded.long_name, long_name),
             short_name = coalesce(excluded.short_name, short_name),
             first_seen = min(coalesce(first_seen, excluded.first_seen), excluded.first_seen),
             last_seen = max(coalesce(last_seen, excluded.last_seen), excluded.last_seen)",
    )?
    .execute(params![node_sql(node), long_name, short_name, at])?;
    Ok(())
}

pub(super) fn record_usage(
    c: &Connection,
    node: NodeId,
    prompt_tokens: u64,
    completion_tokens: u64,
) -> Result<(), StoreError> {
    c.prepare_cached(
        "INSERT INTO nodes(node, llm_calls, prompt_tokens, completion_tokens)
         VALUES (?1, 1, ?2, ?3)
         ON CONFLICT(node) DO UPDATE SET
             llm_calls = llm_calls + 1,
             prompt_tokens = prompt_tokens + excluded.prompt_tokens,
             completion_tokens = completion_tokens + excluded.completion_tokens",
    )?
    .execute(params![
        node_sql(node),
        counter_sql(prompt_tokens),
        counter_sql(completion_tokens)
    ])?;
    Ok(())
}

pub(super) fn stats(c: &Connection) -> Result<Vec<NodeStats>, StoreError> {
    let mut stmt = c.prepare(
        "WITH ids(node) AS (
             SELECT node FROM nodes UNION SELECT node FROM messages UNION SELECT node FROM summaries
         )
         SELECT ids.node, n.long_name,
                (SELECT count(*) FROM messages m WHERE m.node = ids.node),
                n.last_seen,
                coalesce(length(s.text), 0),
                coalesce(n.llm_calls, 0), coalesce(n.prompt_tokens, 0),
                coalesce(n.completion_tokens, 0)
         FROM ids
         LEFT JOIN nodes n ON n.node = ids.node
         LEFT JOIN summaries s ON s.node = ids.node
         ORDER BY n.last_seen IS NULL, n.last_seen DESC, ids.node",
    )?;
    let rows = stmt.query_map([], |row| {
        let node: i64 = row.get(0)?;
        let node =
            u32::try_from(node).map_err(|_| rusqlite::Error::IntegralValueOutOfRange(0, node))?;
        Ok(NodeStats {
            node: NodeId(node),
            long_name: row.get(1)?,
            messages: counter(row.get(2)?),
            last_seen: row.get(3)?,
            summary_chars: usize::try_from(row.get::<_, i64>(4)?).unwrap_or(0),
            llm_calls: counter(row.get(5)?),
            prompt_tokens: counter(row.get(6)?),
            completion_tokens: counter(row.get(7)?),
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
}
