//! The background sampler: one thread per measured region, reading the source at a fixed
//! period (20 Hz by default) until told to stop, then handing its readings back. It only reads
//! the source; it never touches the GPU context, so nothing it does enters a timed region
//! beyond its share of a host core.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use gpubench_results::telemetry::{Sensors, TelemetryPoint, TelemetryStatus, TelemetrySummary};

use crate::source::{Reading, TelemetrySource};

/// The default period between readings: 20 Hz.
pub const DEFAULT_PERIOD: Duration = Duration::from_millis(50);
/// The run's trace keeps at most this many points (readings are thinned evenly beyond it).
pub const MAX_TRACE_POINTS: usize = 2000;

/// A shared source, locked by one sampler at a time.
pub type SharedSource = Arc<Mutex<Box<dyn TelemetrySource>>>;

/// A reading and when it was taken.
#[derive(Debug, Clone)]
pub struct Timed {
    /// When the reading was taken.
    pub at: Instant,
    /// The reading.
    pub reading: Reading,
}

/// A running sampler thread.
pub struct Sampler {
    stop: Sender<()>,
    handle: JoinHandle<Vec<Timed>>,
    latest: Arc<Mutex<Option<Reading>>>,
}

impl Sampler {
    /// Starts reading `source` every `period`, the first reading at once.
    pub fn start(source: SharedSource, period: Duration) -> std::io::Result<Self> {
        let (stop, stopped) = mpsc::channel::<()>();
        let latest = Arc::new(Mutex::new(None));
        let newest = Arc::clone(&latest);
        let handle = std::thread::Builder::new()
            .name("gpubench-telemetry".to_string())
            .spawn(move || {
                let mut readings = Vec::new();
                loop {
                    let reading = match source.lock() {
                        Ok(mut source) => source.sample(),
                        Err(_) => break,
                    };
                    if let Ok(mut newest) = newest.lock() {
                        *newest = Some(reading.clone());
                    }
                    readings.push(Timed {
                        at: Instant::now(),
                        reading,
                    });
                    match stopped.recv_timeout(period) {
                        Err(RecvTimeoutError::Timeout) => continue,
                        _ => break,
                    }
                }
                readings
            })?;
        Ok(Self {
            stop,
            handle,
            latest,
        })
    }

    /// The newest reading, once there is one.
    pub fn latest(&self) -> Option<Reading> {
        self.latest.lock().ok()?.clone()
    }

    /// Stops the thread and returns its readings (none when it panicked).
    pub fn stop(self) -> Vec<Timed> {
        // The thread may already have ended (a poisoned source): then there is no receiver.
        let _ = self.stop.send(());
        self.handle.join().unwrap_or_default()
    }
}

/// The readings taken from `from` on; where none was, the last one before it (the clocks a
/// short stretch ran at are the ones read just before it).
pub fn since(readings: &[Timed], from: Instant) -> &[Timed] {
    let first = readings.partition_point(|t| t.at < from);
    if first < readings.len() {
        &readings[first..]
    } else {
        &readings[readings.len().saturating_sub(1)..]
    }
}

/// The summary of `readings` from the source named `source`.
pub fn summarise(source: &str, readings: &[Timed]) -> TelemetrySummary {
    let mut reasons: Vec<String> = Vec::new();
    for reason in readings.iter().flat_map(|t| &t.reading.throttle_reasons) {
        if !reasons.contains(reason) {
            reasons.push(reason.clone());
        }
    }
    let mut summary = TelemetrySummary::without_readings(TelemetryStatus::Sampled, None);
    summary.source = Some(source.to_string());
    summary.readings = readings.len();
    summary.sensors = Sensors::spread_over(readings.iter().map(|t| &t.reading.sensors));
    summary.throttle_reasons = reasons;
    summary
}

/// The readings as a time line from the first, thinned evenly to at most `max` points.
pub fn trace(readings: &[Timed], max: usize) -> Vec<TelemetryPoint> {
    let Some(first) = readings.first() else {
        return Vec::new();
    };
    let stride = readings.len().div_ceil(max.max(1)).max(1);
    readings
        .iter()
        .step_by(stride)
        .map(|t| TelemetryPoint {
            t_s: t.at.duration_since(first.at).as_secs_f64(),
            sm_clock_mhz: t.reading.sensors.sm_clock_mhz,
            temperature_c: t.reading.sensors.temperature_c,
            power_w: t.reading.sensors.power_w,
            throttle_reasons: t.reading.throttle_reasons.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::{FakeScript, FakeSource};

    fn reading(mhz: f64, reasons: &[&str]) -> Reading {
        Reading {
            sensors: Sensors {
                sm_clock_mhz: Some(mhz),
                temperature_c: Some(60.0),
                ..Sensors::default()
            },
            throttle_reasons: reasons.iter().map(|r| r.to_string()).collect(),
        }
    }

    #[test]
    fn a_sampler_reads_until_stopped_and_the_summary_spans_its_readings() {
        let script = FakeScript {
            readings: vec![
                reading(1000.0, &[]),
                reading(1500.0, &["sw-power-cap"]),
                reading(2000.0, &["sw-power-cap", "hw-thermal-slowdown"]),
            ],
            ..FakeScript::default()
        };
        let source: SharedSource = Arc::new(Mutex::new(Box::new(FakeSource::new(script))));
        let sampler = Sampler::start(source, Duration::from_millis(5)).expect("thread");
        std::thread::sleep(Duration::from_millis(60));
        let readings = sampler.stop();
        assert!(readings.len() >= 3, "{} readings", readings.len());
        let summary = summarise("fake", &readings);
        assert_eq!(summary.readings, readings.len());
        let clock = summary.sensors.sm_clock_mhz.expect("clock");
        assert_eq!((clock.min, clock.max), (1000.0, 2000.0));
        assert_eq!(
            summary.throttle_reasons,
            ["sw-power-cap", "hw-thermal-slowdown"]
        );
        assert_eq!(summary.sensors.power_w, None, "the source gives no power");
    }

    #[test]
    fn the_trace_is_thinned_to_its_maximum_and_starts_at_zero() {
        let start = Instant::now();
        let readings: Vec<Timed> = (0..10)
            .map(|i| Timed {
                at: start + Duration::from_millis(i * 10),
                reading: reading(i as f64, &[]),
            })
            .collect();
        let points = trace(&readings, 4);
        assert_eq!(points.len(), 4);
        assert_eq!(points[0].t_s, 0.0);
        assert_eq!(points[1].sm_clock_mhz, Some(3.0));
        assert!(trace(&[], 4).is_empty());
    }
}
