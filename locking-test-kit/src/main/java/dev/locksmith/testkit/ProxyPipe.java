package dev.locksmith.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One direction of a {@link ProxyConnection}: a reader that queues chunks and a writer that
 * delivers them, applying the {@link FaultProxy}'s freeze, delay and lost reply.
 */
final class ProxyPipe {
  private static final Logger LOG = LoggerFactory.getLogger(FaultProxy.class);
  private static final int CHUNK_BYTES = 16 * 1024;
  private static final long MAX_HELD_BYTES = 4L << 20;
  private static final byte[] NO_BYTES = new byte[0];

  final ProxyConnection connection;
  final FaultProxy.Direction direction;
  private final FaultProxy proxy;
  private final ReentrantLock lock;
  final Socket source;
  final Socket destination;
  final Condition changed;

  /** Guarded by the proxy's lock. */
  final ArrayDeque<Item> queue = new ArrayDeque<>();

  long heldBytes;

  /** An end of stream or reset is queued: later data is discarded. */
  boolean ended;

  /** The writer delivered an end of stream. */
  boolean done;

  ProxyPipe(
      ProxyConnection connection,
      FaultProxy.Direction direction,
      Socket source,
      Socket destination) {
    this.connection = connection;
    this.proxy = connection.proxy;
    this.lock = proxy.lock;
    this.changed = lock.newCondition();
    this.direction = direction;
    this.source = source;
    this.destination = destination;
  }

  /** Ends the stream toward the receiving side after what was read before: a half-close. */
  void halfClose(long readAtNanos) {
    offer(Kind.EOF, NO_BYTES, readAtNanos);
  }

  void readLoop() {
    byte[] buffer = new byte[CHUNK_BYTES];
    try {
      InputStream in = source.getInputStream();
      while (true) {
        int n = in.read(buffer);
        long now = System.nanoTime();
        if (n < 0) {
          offer(Kind.EOF, NO_BYTES, now);
          return;
        }
        if (!offer(Kind.DATA, Arrays.copyOf(buffer, n), now)) {
          return;
        }
      }
    } catch (IOException e) {
      if (!connection.isClosed()) {
        LOG.debug("{} {}: {} read failed: {}", proxy, connection.name, direction, e.toString());
        offer(Kind.SOURCE_RESET, NO_BYTES, System.nanoTime());
      }
    }
  }

  /**
   * Queues an item, waiting for room if it is data; returns false once the connection is closed (or
   * the reader is interrupted), when reading should stop.
   */
  boolean offer(Kind kind, byte[] bytes, long readAtNanos) {
    lock.lock();
    try {
      while (kind == Kind.DATA && heldBytes >= MAX_HELD_BYTES && !ended && !connection.closed) {
        changed.await();
      }
      if (connection.closed) {
        return false;
      }
      if (ended) {
        return true; // after an end of stream or reset: read and discard
      }
      Kind queued = kind;
      byte[] payload = bytes;
      if (kind == Kind.DATA
          && direction == FaultProxy.Direction.TO_CLIENT
          && proxy.faults.takeLostReply()) {
        queued = Kind.LOST_REPLY;
        payload = NO_BYTES;
        LOG.info("{} {}: lost a reply of {} byte(s)", proxy, connection.name, bytes.length);
      }
      if (queued != Kind.DATA) {
        ended = true;
      }
      queue.add(new Item(queued, payload, readAtNanos));
      heldBytes += payload.length;
      changed.signalAll();
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    } finally {
      lock.unlock();
    }
  }

  void writeLoop() {
    try {
      OutputStream out = destination.getOutputStream();
      while (true) {
        Item item = take();
        if (item == null) {
          return;
        }
        switch (item.kind()) {
          case DATA:
            out.write(item.bytes());
            proxy.forwarded[direction.ordinal()].addAndGet(item.bytes().length);
            break;
          case EOF:
            destination.shutdownOutput();
            if (finished()) {
              connection.close(false, false);
            }
            return;
          case LOST_REPLY:
            connection.close(true, false);
            return;
          case SOURCE_RESET:
            connection.close(true, true);
            return;
        }
      }
    } catch (IOException e) {
      if (!connection.isClosed()) {
        LOG.debug("{} {}: {} write failed: {}", proxy, connection.name, direction, e.toString());
        connection.close(true, true);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      connection.close(true, true);
    }
  }

  /** Waits until the head item is due (not frozen, delay passed); null once closed. */
  @Nullable Item take() throws InterruptedException {
    lock.lock();
    try {
      while (!connection.closed) {
        Item head = queue.peek();
        if (head == null || proxy.faults.isFrozen(direction)) {
          changed.await();
          continue;
        }
        long waited = System.nanoTime() - head.readAtNanos();
        long wait = proxy.faults.delayNanos(direction) - waited;
        if (wait > 0) {
          changed.awaitNanos(wait);
          continue;
        }
        queue.poll();
        heldBytes -= head.bytes().length;
        changed.signalAll();
        return head;
      }
      return null;
    } finally {
      lock.unlock();
    }
  }

  /** Marks this direction ended; returns whether the other one has ended too. */
  boolean finished() {
    lock.lock();
    try {
      done = true;
      ProxyPipe other =
          connection.pipe(
              direction == FaultProxy.Direction.TO_SERVER
                  ? FaultProxy.Direction.TO_CLIENT
                  : FaultProxy.Direction.TO_SERVER);
      return other.done;
    } finally {
      lock.unlock();
    }
  }

  /** What a queued item is: bytes, or an end of stream or reset passed on in order. */
  private enum Kind {
    DATA,
    EOF,
    LOST_REPLY,
    SOURCE_RESET
  }

  /** One chunk or marker, with the {@link System#nanoTime()} it was read at. */
  private record Item(Kind kind, byte[] bytes, long readAtNanos) {}
}
