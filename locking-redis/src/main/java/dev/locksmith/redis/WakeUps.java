package dev.locksmith.redis;

import dev.locksmith.core.spi.WakeSignal;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.redisson.api.RedissonClient;

/**
 * The release channels this JVM's waiters listen to. One subscription per channel is shared by all
 * of a provider's waiters for that lock; when the last one leaves it stays for {@link
 * #LINGER_MILLIS} (at most {@link #MAX_LINGERING} channels at a time), so that the next wait on a
 * busy lock finds it in place instead of subscribing again, and the winner of a hand-off returns
 * without dropping it. A message, or a re-subscription after a reconnect when messages may have
 * been missed, wakes every waiter of the channel to try again; the first subscription wakes nobody,
 * since each waiter tries once it is in place. {@link #close()} wakes every waiter and drops every
 * subscription.
 */
final class WakeUps {
  private final RedissonClient client;
  private final ConcurrentHashMap<String, Channel> channels = new ConcurrentHashMap<>();
  private final UnsubscriptionsInFlight unsubscriptions = new UnsubscriptionsInFlight();
  private volatile boolean closed;
  private final LongAdder subscriptionAttempts = new LongAdder();

  /** Thrown by {@link #register} once the wake-ups are closed. */
  static final class ClosedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    ClosedException() {
      super("wake-ups closed");
    }
  }

  WakeUps(RedissonClient client) {
    this.client = client;
  }

  /** How long a channel stays subscribed after its last waiter left: 2 s. */
  static final long LINGER_MILLIS = 2_000;

  /**
   * How many channels may stay subscribed without waiters at a time: 4. More would eat into the
   * client's subscription budget ({@code subscriptionsPerConnection} × the subscription pool),
   * which waits on other locks need; beyond it a channel is dropped when its last waiter leaves.
   */
  static final int MAX_LINGERING = 4;

  // Runs each check on the JDK's shared delay thread: it only takes a channel's mutex and sends
  // an unsubscription without waiting.
  private static final java.util.concurrent.Executor LINGER_TIMER =
      CompletableFuture.delayedExecutor(LINGER_MILLIS, TimeUnit.MILLISECONDS, Runnable::run);

  /** How long a waiter without a subscription sleeps between attempts. */
  static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** One waiter's wake-up signal. */
  static final class Waiter {
    private final @Nullable Channel channel;
    private final WakeSignal signal = new WakeSignal();

    private Waiter(@Nullable Channel channel) {
      this.channel = channel;
    }

    /**
     * A waiter that has no subscription (subscribing failed) and polls every {@link #POLL_NANOS}
     * instead.
     */
    static Waiter polling() {
      return new Waiter(null);
    }

    /**
     * Waits until a wake-up arrives or {@code nanos} pass; a wake-up sent since the last wait
     * counts at once.
     */
    void await(long nanos) throws InterruptedException {
      signal.await(channel == null ? Math.min(nanos, POLL_NANOS) : nanos);
    }

    void wake() {
      signal.wake();
    }
  }

  private final class Channel {
    final String name;
    final ReentrantLock mutex = new ReentrantLock();
    final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
    final ChannelListeners listeners;
    volatile boolean retired;

    /**
     * Why subscribing failed, for the waiters that queued behind that attempt: they poll at once
     * instead of each trying again and waiting out the subscription timeout in turn. Guarded by the
     * mutex.
     */
    @Nullable RuntimeException failure;

    /** When the last waiter left ({@code nanoTime}); guarded by the mutex. */
    long idleSince;

    Channel(String name) {
      this.name = name;
      this.listeners = new ChannelListeners(client, name, unsubscriptions, this::wakeAll);
    }

    void wakeAll() {
      waiters.forEach(Waiter::wake);
    }

    /**
     * When the channel has no waiters left: keeps it subscribed for {@link #LINGER_MILLIS} if
     * {@code linger} and fewer than {@link #MAX_LINGERING} others linger, else drops it now. The
     * caller holds the mutex.
     */
    void unsubscribeIfIdle(boolean linger) {
      if (!waiters.isEmpty() || retired) {
        return;
      }
      if (!linger || closed || !listeners.added() || lingering() > MAX_LINGERING) {
        retire();
        return;
      }
      long mark = System.nanoTime();
      idleSince = mark;
      LINGER_TIMER.execute(() -> retireIfStillIdle(mark));
    }

    /** Drops the subscription if no waiter came since it went idle at {@code mark}. */
    private void retireIfStillIdle(long mark) {
      if (!mutex.tryLock()) {
        // In use right now; never block the shared delay thread: look again after the linger.
        LINGER_TIMER.execute(() -> retireIfStillIdle(mark));
        return;
      }
      try {
        if (!retired && waiters.isEmpty() && idleSince == mark) {
          retire();
        }
      } finally {
        mutex.unlock();
      }
    }

    /**
     * Drops the subscription without waiting for Redis: the waiter that just got the lock returns
     * at once instead of after an UNSUBSCRIBE round trip. The caller holds the mutex.
     */
    void retire() {
      retired = true;
      try {
        listeners.remove();
      } finally {
        // Only once the removal is tracked: a waiter that comes now makes a new channel, not
        // guarded by this one's mutex, and its subscription must find the removal to wait for.
        channels.remove(name, this);
      }
    }
  }

  /**
   * Subscribes (or joins the subscription) to {@code channelName}; returns once the subscription is
   * in place, so a release published after this returns wakes the waiter.
   *
   * @throws RuntimeException from Redisson when the subscription failed, this caller's or the one
   *     it queued behind (a waiter that came later tries afresh); nothing is registered
   */
  Waiter register(String channelName) {
    while (true) {
      if (closed) {
        throw new ClosedException();
      }
      Channel channel = channels.computeIfAbsent(channelName, Channel::new);
      channel.mutex.lock();
      try {
        if (closed) {
          // close() may not come to this channel once it is retired: wake its waiters here.
          channel.wakeAll();
          if (!channel.retired) {
            channel.retire();
          }
          throw new ClosedException();
        }
        RuntimeException failure = channel.failure;
        if (failure != null) {
          throw failure;
        }
        if (channel.retired) {
          continue;
        }
        Waiter waiter = new Waiter(channel);
        channel.waiters.add(waiter);
        if (!channel.listeners.added()) {
          subscriptionAttempts.increment();
          try {
            channel.listeners.add();
          } catch (RuntimeException e) {
            channel.failure = e;
            channel.waiters.remove(waiter);
            channel.unsubscribeIfIdle(false);
            throw e;
          }
        }
        return waiter;
      } finally {
        channel.mutex.unlock();
      }
    }
  }

  /**
   * Leaves the channel; after the last waiter left, the subscription stays for {@link
   * #LINGER_MILLIS} unless too many others linger (see {@link #MAX_LINGERING}).
   */
  void unregister(Waiter waiter) {
    Channel channel = waiter.channel;
    if (channel == null) {
      return;
    }
    channel.mutex.lock();
    try {
      channel.waiters.remove(waiter);
      channel.unsubscribeIfIdle(true);
    } finally {
      channel.mutex.unlock();
    }
  }

  /**
   * Wakes every waiter and drops every subscription; later registrations throw {@link
   * ClosedException}. Waiters see the close when they wake and leave by {@link #unregister}.
   */
  void close() {
    closed = true;
    for (Channel channel : channels.values()) {
      channel.mutex.lock();
      try {
        channel.wakeAll();
        if (!channel.retired) {
          channel.retire();
        }
      } finally {
        channel.mutex.unlock();
      }
    }
  }

  /** How many channels have waiters now, with their subscription in place on Redis. */
  int subscribedChannels() {
    int waitedOn = 0;
    for (Channel channel : channels.values()) {
      if (!channel.waiters.isEmpty() && channel.listeners.subscribed()) {
        waitedOn++;
      }
    }
    return waitedOn;
  }

  /** How many channels are subscribed now, those lingering without waiters included. */
  int subscriptions() {
    return channels.size();
  }

  /** How many subscriptions have been attempted; for tests. */
  long subscriptionAttempts() {
    return subscriptionAttempts.sum();
  }

  /** How many callers of {@link #register} wait for {@code channelName}'s mutex; for tests. */
  int queuedFor(String channelName) {
    Channel channel = channels.get(channelName);
    return channel == null ? 0 : channel.mutex.getQueueLength();
  }

  /** How many channels are subscribed without waiters. */
  private int lingering() {
    int idle = 0;
    for (Channel channel : channels.values()) {
      if (channel.waiters.isEmpty() && !channel.retired) {
        idle++;
      }
    }
    return idle;
  }
}
