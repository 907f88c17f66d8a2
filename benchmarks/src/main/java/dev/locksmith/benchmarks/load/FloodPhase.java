package dev.locksmith.benchmarks.load;

import static dev.locksmith.benchmarks.load.CapacityFigures.perItem;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The flood phase of {@link Capacity}: connections that pipeline short requests far ahead of their
 * replies and read none, so the server stops reading them; what each costs the server then, against
 * an idle connection measured in the same server just before. Then the clients read every reply.
 */
final class FloodPhase {
  private static final Logger LOG = LoggerFactory.getLogger(Capacity.class);
  private static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(1);
  private static final long LIMIT_NANOS = TimeUnit.SECONDS.toNanos(90);

  private FloodPhase() {}

  static String run(CapacityOptions options, Path log) throws Exception {
    int count = options.floodConnections;
    byte[] batch = statusLines(options.floodBytes);
    long lines = count(batch, batch.length, (byte) '\n');
    StringBuilder out = new StringBuilder("### Connections that pipeline and read no reply\n\n");
    out.append(
        String.format(
            Locale.ROOT,
            "%,d connections each send one `PING` and read its answer, then each writes %,d B"
                + " of pipelined `STATUS flood` lines (%,d requests; another connection holds"
                + " `flood` with a description of 256 characters, so each answer is about 18 times"
                + " its request) as fast as the server takes them and reads nothing, until no"
                + " connection has taken a byte for 1 s. The server stops reading a connection"
                + " while its replies cannot be sent; the baseline is the same connections idle,"
                + " measured in the same server just before.%n%n",
            count,
            batch.length,
            lines));
    out.append(
        "| connections | server heap per connection | direct memory per connection |"
            + " ratio to idle (heap) | requests written | after the clients read every reply |\n");
    out.append("|---|---:|---:|---:|---:|---|\n");
    try (ServerJvm server = ServerJvm.start(options.heap, log);
        SocketChannel holder = holder(server.port())) {
      ServerJvm.Heap empty = server.heap();
      List<Flooder> flooders = new ArrayList<>();
      try {
        for (int i = 0; i < count; i++) {
          flooders.add(new Flooder(server.port(), batch));
        }
        ServerJvm.Heap idle = server.heap();
        long requests = pump(flooders, false);
        ServerJvm.Heap flooded = server.heap();
        LOG.info("flood: empty {}, idle {}, flooded {}", empty, idle, flooded);
        long idleHeap = perItem(idle.liveHeap() - empty.liveHeap(), count);
        long floodHeap = perItem(flooded.liveHeap() - empty.liveHeap(), count);
        out.append(
            String.format(
                Locale.ROOT,
                "| idle (baseline) | %,d B | %,d B | 1.00x | | |%n",
                idleHeap,
                perItem(idle.direct() - empty.direct(), count)));
        pump(flooders, true);
        long answered = 0;
        for (Flooder flooder : flooders) {
          answered += flooder.repliesInOrder;
        }
        ServerJvm.Heap drained = server.heap();
        call(holder, "r RELEASE flood flood-holder\n");
        out.append(
            String.format(
                Locale.ROOT,
                "| flooding | %,d B | %,d B | %s | %,d of %,d | %,d of %,d replies, in order;"
                    + " heap %,d B per connection |%n%n",
                floodHeap,
                perItem(flooded.direct() - empty.direct(), count),
                idleHeap <= 0
                    ? "n/a"
                    : String.format(Locale.ROOT, "%.2fx", (double) floodHeap / idleHeap),
                requests,
                lines * count,
                answered,
                lines * count,
                perItem(drained.liveHeap() - empty.liveHeap(), count)));
      } finally {
        for (Flooder flooder : flooders) {
          flooder.channel.close();
        }
      }
    }
    return out.toString();
  }

  /**
   * Writes (and, when {@code reading}, reads) on every connection without blocking, until every
   * batch is written and answered or no connection has moved for a second; at most 90 s. Returns
   * the requests written in all.
   */
  private static long pump(List<Flooder> flooders, boolean reading) throws IOException {
    long start = System.nanoTime();
    long lastMove = start;
    while (System.nanoTime() - start < LIMIT_NANOS) {
      boolean moved = false;
      boolean done = true;
      for (Flooder flooder : flooders) {
        moved |= flooder.write();
        if (reading) {
          moved |= flooder.read();
          done &= flooder.answered();
        } else {
          done &= !flooder.out.hasRemaining();
        }
      }
      long now = System.nanoTime();
      if (moved) {
        lastMove = now;
      } else if ((done && reading) || now - lastMove > QUIET_NANOS) {
        break;
      } else {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
      }
    }
    long requests = 0;
    for (Flooder flooder : flooders) {
      requests += flooder.requestsWritten();
    }
    return requests;
  }

  /**
   * A connection that holds the lock {@code flood} with a description of the most characters the
   * protocol allows, so that each {@code STATUS flood} is answered with about 18 times its bytes.
   */
  private static SocketChannel holder(int port) throws IOException {
    SocketChannel channel =
        SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
    call(channel, "h ACQUIRE flood 3600000 0 flood-holder " + "d".repeat(256) + "\n");
    return channel;
  }

  /** Sends a request line on a blocking channel and reads its one-line answer. */
  private static void call(SocketChannel channel, String line) throws IOException {
    channel.write(ByteBuffer.wrap(line.getBytes(StandardCharsets.US_ASCII)));
    ByteBuffer answer = ByteBuffer.allocate(512);
    while (answer.position() == 0 || answer.get(answer.position() - 1) != '\n') {
      if (channel.read(answer) < 0) {
        throw new IOException("the server closed a connection before answering " + line.trim());
      }
    }
  }

  private static byte[] statusLines(int bytes) {
    StringBuilder text = new StringBuilder(bytes + 32);
    for (int i = 0; text.length() < bytes; i++) {
      text.append(Integer.toString(i, 36)).append(" STATUS flood\n");
    }
    return text.toString().getBytes(StandardCharsets.US_ASCII);
  }

  private static long count(byte[] bytes, int length, byte wanted) {
    long n = 0;
    for (int i = 0; i < length; i++) {
      if (bytes[i] == wanted) {
        n++;
      }
    }
    return n;
  }

  /** One connection: its batch, how far it was written, and the replies read so far. */
  private static final class Flooder {
    final SocketChannel channel;
    final ByteBuffer out;
    final ByteBuffer in = ByteBuffer.allocate(64 * 1024);
    final long lines;
    final StringBuilder reply = new StringBuilder();
    long repliesInOrder;
    long replies;

    Flooder(int port, byte[] batch) throws IOException {
      channel = SocketChannel.open(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      call(channel, "ping PING\n");
      channel.configureBlocking(false);
      out = ByteBuffer.wrap(batch);
      lines = count(batch, batch.length, (byte) '\n');
    }

    boolean write() throws IOException {
      return out.hasRemaining() && channel.write(out) > 0;
    }

    boolean read() throws IOException {
      in.clear();
      int n = channel.read(in);
      if (n <= 0) {
        return false;
      }
      for (int i = 0; i < n; i++) {
        char c = (char) in.get(i);
        if (c != '\n') {
          reply.append(c);
          continue;
        }
        int space = reply.indexOf(" ");
        if (space > 0 && reply.substring(0, space).equals(Long.toString(replies, 36))) {
          repliesInOrder++;
        }
        replies++;
        reply.setLength(0);
      }
      return true;
    }

    long requestsWritten() {
      return count(out.array(), out.position(), (byte) '\n');
    }

    boolean answered() {
      return replies >= lines;
    }
  }
}
