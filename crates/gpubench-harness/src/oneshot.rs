//! A one-value channel whose receiving end is a future: how a browser build (`wasm32`) waits
//! for a wgpu callback (`map_async`, `on_submitted_work_done`) without blocking the page's only
//! thread. Natively the same channel carries a mapping's answer, and a wait on the device runs
//! the callback before the receiver is awaited.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

/// What the two ends share: the value once sent, the waiting task, and whether the sender
/// is gone.
struct Slot<T> {
    value: Option<T>,
    waker: Option<Waker>,
    closed: bool,
}

/// The sending end: [`Sender::send`] once, or drop it (the receiver then ends with `None`).
pub(crate) struct Sender<T>(Arc<Mutex<Slot<T>>>);

/// The receiving end: a future of the value sent, or `None` if the sender was dropped first.
pub(crate) struct Receiver<T>(Arc<Mutex<Slot<T>>>);

/// A new channel.
pub(crate) fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let slot = Arc::new(Mutex::new(Slot {
        value: None,
        waker: None,
        closed: false,
    }));
    (Sender(Arc::clone(&slot)), Receiver(slot))
}

impl<T> Sender<T> {
    /// Hands `value` to the receiver and wakes it.
    pub(crate) fn send(self, value: T) {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).value = Some(value);
        // Dropping `self` wakes the receiver.
    }
}

impl<T> Receiver<T> {
    /// Whether the value has been sent (or the sender dropped): awaiting now finishes at once.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn is_answered(&self) -> bool {
        let slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        slot.value.is_some() || slot.closed
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            slot.closed = true;
            slot.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> Future for Receiver<T> {
    type Output = Option<T>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(value) = slot.value.take() {
            return Poll::Ready(Some(value));
        }
        if slot.closed {
            return Poll::Ready(None);
        }
        slot.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_sent_from_another_thread_arrives() {
        let (sender, receiver) = channel();
        let sending = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            sender.send(7);
        });
        assert_eq!(pollster::block_on(receiver), Some(7));
        sending.join().expect("sender thread");
    }

    #[test]
    fn a_sender_dropped_unsent_ends_the_wait_with_none() {
        let (sender, receiver) = channel::<u8>();
        assert!(!receiver.is_answered());
        drop(sender);
        assert!(receiver.is_answered());
        assert_eq!(pollster::block_on(receiver), None);
    }

    #[test]
    fn a_sent_value_is_answered_before_it_is_awaited() {
        let (sender, receiver) = channel();
        assert!(!receiver.is_answered());
        sender.send("mapped");
        assert!(receiver.is_answered());
        assert_eq!(pollster::block_on(receiver), Some("mapped"));
    }
}
