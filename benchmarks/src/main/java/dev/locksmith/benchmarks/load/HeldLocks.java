package dev.locksmith.benchmarks.load;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * Connections to a lock server (or Redis) that each took some locks and stay open, so the server
 * holds them all: either many connections with one lock each, opened one after another, or a few
 * connections pipelining many acquisitions each, a writer and a reader thread per connection. Every
 * lock has a token of the form the Java client uses (24 hex digits, a dash, a hex number).
 */
final class HeldLocks implements AutoCloseable {
  private static final String TOKEN_HEAD = "0123456789abcdef01234567-";
  static final long TTL_MILLIS = TimeUnit.HOURS.toMillis(1);
  private static final long LOAD_LIMIT_MILLIS = TimeUnit.MINUTES.toMillis(4);

  private final List<Socket> sockets = new ArrayList<>();
  private final AtomicLong granted = new AtomicLong();
  private final AtomicLong refused = new AtomicLong();
  private final AtomicReference<@Nullable String> firstRefusal = new AtomicReference<>();
  private final AtomicReference<@Nullable Throwable> firstError = new AtomicReference<>();
  private double seconds;

  private HeldLocks() {}

  /**
   * Opens {@code count} connections, four threads each opening its share one after another, each
   * connection taking the lock {@code prefix-i}; then reads every answer. The local port is chosen
   * at connect, per destination, so sockets of earlier runs waiting in TIME_WAIT do not use up the
   * ports.
   */
  static HeldLocks oneEach(Wire wire, int port, int count, String prefix) throws Exception {
    HeldLocks held = new HeldLocks();
    long start = System.nanoTime();
    int threads = 4;
    List<List<Socket>> opened = new ArrayList<>();
    List<Thread> openers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      List<Socket> mine = new ArrayList<>();
      opened.add(mine);
      int first = t;
      Thread opener =
          new Thread(
              () -> {
                try {
                  for (int i = first; i < count; i += threads) {
                    Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
                    mine.add(socket);
                    socket.setSoTimeout(60_000);
                    socket
                        .getOutputStream()
                        .write(wire.acquire(1, prefix + i, token(i), TTL_MILLIS));
                  }
                } catch (IOException | RuntimeException e) {
                  held.firstError.compareAndSet(null, e);
                }
              },
              "capacity-opener-" + t);
      opener.setDaemon(true);
      openers.add(opener);
    }
    openers.forEach(Thread::start);
    for (Thread opener : openers) {
      opener.join(LOAD_LIMIT_MILLIS);
    }
    try {
      for (List<Socket> mine : opened) {
        for (Socket socket : mine) {
          held.sockets.add(socket);
          held.count(wire, readLine(new BufferedInputStream(socket.getInputStream(), 256)));
        }
      }
    } catch (IOException | RuntimeException e) {
      held.firstError.compareAndSet(null, e);
    }
    held.seconds = (System.nanoTime() - start) / 1e9;
    return held;
  }

  /**
   * Opens {@code connections} connections, each pipelining {@code perConnection} acquisitions of
   * {@code prefix<c>-<i>}; returns when every answer was read or {@code limit} ran out.
   */
  static HeldLocks pipelined(
      Wire wire, int port, int connections, int perConnection, String prefix, Duration limit)
      throws Exception {
    HeldLocks held = new HeldLocks();
    List<Thread> threads = new ArrayList<>();
    long start = System.nanoTime();
    for (int c = 0; c < connections; c++) {
      Socket socket = new Socket(InetAddress.getLoopbackAddress(), port);
      socket.setSoTimeout((int) limit.toMillis());
      held.sockets.add(socket);
      int conn = c;
      Thread writer =
          new Thread(
              () -> {
                try {
                  OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 1 << 16);
                  for (int i = 0; i < perConnection; i++) {
                    long seq = (long) conn * perConnection + i;
                    out.write(wire.acquire(i, prefix + conn + "-" + i, token(seq), TTL_MILLIS));
                  }
                  out.flush();
                } catch (IOException e) {
                  held.firstError.compareAndSet(null, e);
                }
              },
              "capacity-writer-" + c);
      Thread reader =
          new Thread(
              () -> {
                try {
                  InputStream in = new BufferedInputStream(socket.getInputStream(), 1 << 16);
                  for (int i = 0; i < perConnection; i++) {
                    held.count(wire, readLine(in));
                  }
                } catch (IOException | RuntimeException e) {
                  held.firstError.compareAndSet(null, e);
                }
              },
              "capacity-reader-" + c);
      writer.setDaemon(true);
      reader.setDaemon(true);
      threads.add(writer);
      threads.add(reader);
    }
    threads.forEach(Thread::start);
    long deadline = start + limit.toNanos();
    for (Thread thread : threads) {
      thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
    }
    held.seconds = (System.nanoTime() - start) / 1e9;
    return held;
  }

  private void count(Wire wire, @Nullable String line) throws IOException {
    if (line == null) {
      throw new IOException("connection closed by the server");
    }
    if (wire.granted(line)) {
      granted.incrementAndGet();
    } else {
      refused.incrementAndGet();
      firstRefusal.compareAndSet(null, line);
    }
  }

  static String token(long seq) {
    return TOKEN_HEAD + Long.toHexString(seq + 1);
  }

  /** A line without its {@code \n} or {@code \r\n}; null at the end of the stream. */
  private static @Nullable String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder(64);
    int b;
    while ((b = in.read()) >= 0) {
      if (b == '\n') {
        int n = line.length();
        if (n > 0 && line.charAt(n - 1) == '\r') {
          line.setLength(n - 1);
        }
        return line.toString();
      }
      line.append((char) b);
    }
    return null;
  }

  long granted() {
    return granted.get();
  }

  long refused() {
    return refused.get();
  }

  @Nullable String firstRefusal() {
    return firstRefusal.get();
  }

  @Nullable Throwable firstError() {
    return firstError.get();
  }

  int connections() {
    return sockets.size();
  }

  double seconds() {
    return seconds;
  }

  @Override
  public void close() {
    for (Socket socket : sockets) {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
    sockets.clear();
  }
}
