//! A few items of one sample, stage by stage, on the host clock: where each item's time went
//! and how items overlapped (the bars of a Gantt chart).
//!
//! A benchmark whose sample carries whole items (the requests of a data path) records each
//! item's stages as it runs; the runner keeps those of one typical sample (the one whose time
//! is nearest the median) and writes them into the result's `extra` under [`EXTRA_KEY`]. It is
//! an `extra` entry, not a field, so files keep their schema version and readers that do not
//! know it pass it through untouched. Times are microseconds from the start of the sample's
//! first recorded stage.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The `extra` key a result's item timeline is stored under.
pub const EXTRA_KEY: &str = "item_timeline";

/// At most this many items are kept: enough to see the pipeline fill and settle, few enough
/// to read.
pub const MAX_ITEMS: usize = 8;

/// Several items' stages on one time axis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ItemTimeline {
    /// The clock the spans were taken with (always `host` today).
    pub clock: String,
    /// The items, in the order they started.
    pub items: Vec<TimelineItem>,
}

/// One item's stages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimelineItem {
    /// The item's number within the run (requests are numbered from 0).
    pub item: u64,
    /// Its stages, in the order they started.
    pub spans: Vec<StageSpan>,
}

/// One stage of one item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StageSpan {
    /// The stage's name (`prepare`, `in-flight`, `check`).
    pub stage: String,
    /// Start, in microseconds from the timeline's origin.
    pub start_us: f64,
    /// End, in microseconds from the timeline's origin.
    pub end_us: f64,
}

impl StageSpan {
    /// `stage` from `start_us` to `end_us`.
    pub fn new(stage: impl Into<String>, start_us: f64, end_us: f64) -> Self {
        Self {
            stage: stage.into(),
            start_us,
            end_us,
        }
    }
}

impl ItemTimeline {
    /// The timeline of `result`, when it has one that parses.
    pub fn of(result: &crate::BenchResult) -> Option<Self> {
        Self::from_extra(&result.extra)
    }

    /// The timeline in a result's `extra`, when there is one that parses.
    pub fn from_extra(extra: &BTreeMap<String, serde_json::Value>) -> Option<Self> {
        serde_json::from_value(extra.get(EXTRA_KEY)?.clone()).ok()
    }

    /// Stores the timeline in a result's `extra`.
    pub fn store(&self, extra: &mut BTreeMap<String, serde_json::Value>) {
        if let Ok(value) = serde_json::to_value(self) {
            extra.insert(EXTRA_KEY.to_string(), value);
        }
    }

    /// The end of the last span (the timeline's length), in microseconds.
    pub fn end_us(&self) -> f64 {
        self.items
            .iter()
            .flat_map(|i| &i.spans)
            .map(|s| s.end_us)
            .fold(0.0, f64::max)
    }

    /// The stage names in the order they first appear.
    pub fn stages(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        for span in self.items.iter().flat_map(|i| &i.spans) {
            if !out.contains(&span.stage.as_str()) {
                out.push(&span.stage);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeline_round_trips_through_extra_and_states_its_length_and_stages() {
        let timeline = ItemTimeline {
            clock: "host".to_string(),
            items: vec![
                TimelineItem {
                    item: 4,
                    spans: vec![
                        StageSpan::new("prepare", 0.0, 10.0),
                        StageSpan::new("in-flight", 10.0, 50.0),
                    ],
                },
                TimelineItem {
                    item: 5,
                    spans: vec![
                        StageSpan::new("prepare", 12.0, 20.0),
                        StageSpan::new("check", 60.0, 61.5),
                    ],
                },
            ],
        };
        let mut extra = BTreeMap::new();
        timeline.store(&mut extra);
        let back = ItemTimeline::from_extra(&extra).expect("the timeline reads back");
        assert_eq!(back, timeline);
        assert_eq!(back.end_us(), 61.5);
        assert_eq!(back.stages(), ["prepare", "in-flight", "check"]);
        extra.insert(EXTRA_KEY.to_string(), serde_json::json!("garbled"));
        assert_eq!(ItemTimeline::from_extra(&extra), None);
    }
}
