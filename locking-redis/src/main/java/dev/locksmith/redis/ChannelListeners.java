package dev.locksmith.redis;

import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.api.listener.BaseStatusListener;
import org.redisson.client.codec.StringCodec;

/**
 * One channel's two Redisson listeners, added and removed together: a message, or a re-subscription
 * after a reconnect when messages may have been missed, runs the channel's wake-up. Its callers
 * guard it with the channel's mutex.
 */
final class ChannelListeners {
  private final String name;
  private final RTopic topic;
  private final UnsubscriptionsInFlight unsubscriptions;
  private final Runnable wakeAll;
  private int messageListener = -1;
  private int statusListener = -1;

  /**
   * Set once the first subscription is in place. Its own confirmation wakes nobody: each waiter
   * makes an attempt after {@link WakeUps#register} returns, so a wake-up then would only cost
   * every waiter a spurious attempt (a script run per wait). A confirmation after this, a
   * re-subscription after a reconnect that may have missed messages, wakes every waiter.
   */
  private volatile boolean subscribed;

  ChannelListeners(
      RedissonClient client,
      String name,
      UnsubscriptionsInFlight unsubscriptions,
      Runnable wakeAll) {
    this.name = name;
    this.topic = client.getTopic(name, StringCodec.INSTANCE);
    this.unsubscriptions = unsubscriptions;
    this.wakeAll = wakeAll;
  }

  /** Whether the message listener is in place. */
  boolean added() {
    return messageListener >= 0;
  }

  /** Whether both listeners are in place on Redis (readable from any thread). */
  boolean subscribed() {
    return subscribed;
  }

  /**
   * Subscribes, waiting for Redis without reacting to interrupts (an interrupted subscription would
   * leave Redisson's state unknown); the waiter's next wait sees the interrupt.
   */
  void add() {
    unsubscriptions.awaitRemoval(name);
    statusListener =
        topic
            .addListenerAsync(
                new BaseStatusListener() {
                  @Override
                  public void onSubscribe(String channel) {
                    if (subscribed) {
                      wakeAll.run();
                    }
                  }
                })
            .toCompletableFuture()
            .join();
    messageListener =
        topic
            .addListenerAsync(String.class, (channel, message) -> wakeAll.run())
            .toCompletableFuture()
            .join();
    subscribed = true;
  }

  /**
   * Removes the listeners without waiting for Redis; a later subscription to the channel waits for
   * the removal ({@link UnsubscriptionsInFlight}).
   */
  void remove() {
    try {
      if (messageListener >= 0 && statusListener >= 0) {
        unsubscriptions.track(
            name, topic.removeListenerAsync(messageListener, statusListener).toCompletableFuture());
      } else if (messageListener >= 0) {
        unsubscriptions.track(
            name, topic.removeListenerAsync(messageListener).toCompletableFuture());
      } else if (statusListener >= 0) {
        unsubscriptions.track(
            name, topic.removeListenerAsync(statusListener).toCompletableFuture());
      }
    } catch (RuntimeException e) {
      // The connection is gone; Redisson drops the subscription with it.
    }
  }
}
