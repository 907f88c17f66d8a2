package dev.locksmith.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LeaseGrant;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.LineBasedFrameDecoder;
import io.netty.handler.codec.string.StringDecoder;
import io.netty.handler.timeout.IdleStateHandler;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A connection is given up for the server's silence only after a PING the server had time to
 * answer, not when this process was itself stopped (a GC pause, a frozen VM) for three ping
 * intervals: on resuming, the overdue idle timers fire together, before any reply could arrive.
 * Time is the embedded channel's, moved by hand; the pipeline is the provider's.
 */
class ClientSilenceTest {
  private static final long PING_MILLIS = 1_000;

  private final List<LeaseGrant> lost = new ArrayList<>();
  private final ClientConnection connection =
      new ClientConnection("lock server test", new AtomicLong(), lost::add, PING_MILLIS);
  private final EmbeddedChannel channel =
      new EmbeddedChannel(
          new IdleStateHandler(3 * PING_MILLIS, PING_MILLIS, 0, TimeUnit.MILLISECONDS),
          new LineBasedFrameDecoder(1024),
          new StringDecoder(StandardCharsets.UTF_8),
          connection);

  @Test
  void aStopOfThisProcessLongerThanThreeIntervalsIsNotTakenForTheServersSilence() {
    channel.freezeTime();
    channel.advanceTimeBy(5 * PING_MILLIS, TimeUnit.MILLISECONDS); // stopped for 5 intervals
    channel.runScheduledPendingTasks();
    assertThat(channel.isOpen()).as("open on resuming").isTrue();

    String ping = sentLine();
    assertThat(ping).endsWith(" PING");
    channel.writeInbound(line(ping.split(" ")[0] + " PONG"));
    channel.advanceTimeBy(PING_MILLIS, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();

    assertThat(channel.isOpen()).as("open once the server answered").isTrue();
    assertThat(connection.isOpen()).isTrue();
  }

  @Test
  void aServerThatAnswersNoPingWithinOneMoreIntervalIsLeft() {
    channel.freezeTime();
    channel.advanceTimeBy(3 * PING_MILLIS, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();
    assertThat(sentLine()).endsWith(" PING");
    assertThat(channel.isOpen()).as("open while the PING may be answered").isTrue();

    channel.advanceTimeBy(PING_MILLIS, TimeUnit.MILLISECONDS);
    channel.runScheduledPendingTasks();

    assertThat(channel.isOpen()).as("closed after one more silent interval").isFalse();
    assertThat(connection.closeReason()).contains("silent");
  }

  /** The next line the connection wrote, without its newline. */
  private @Nullable String sentLine() {
    ByteBuf out = channel.readOutbound();
    assertThat(out).as("a line sent").isNotNull();
    try {
      String text = out.toString(StandardCharsets.UTF_8);
      return text.substring(0, text.indexOf('\n'));
    } finally {
      out.release();
    }
  }

  private static ByteBuf line(String text) {
    return Unpooled.copiedBuffer(text + "\n", StandardCharsets.UTF_8);
  }
}
