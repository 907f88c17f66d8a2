package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A renewal that reaches the lock table after the stop has closed the data directory: the fencing
 * sequence closed and the lease horizon written for the last time. Over the network such a request
 * comes only when a connection outlives the stop's 2 s wait for the connections to close (a busy
 * event loop), so this test drives the lock table directly: the test thread plays the core thread,
 * a connection is an embedded channel, and the data directory is closed as the stop closes it.
 */
class RenewalAfterStopTest {
  @TempDir Path dir;

  private final DefaultEventLoop core = new DefaultEventLoop();
  private final EmbeddedChannel channel = new EmbeddedChannel();
  private final RequestParser parser = new RequestParser(1024);

  @AfterEach
  void stop() throws Exception {
    channel.finishAndReleaseAll();
    core.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
  }

  /**
   * Guards the refusal in {@code Leases.covered}: once the stop has closed the fencing sequence and
   * written the lease horizon for the last time, a RENEW and a HOLD are answered {@code ERR
   * SHUTTING_DOWN} and the leases stay as they were. Extended, they would outlast the horizon a
   * restart on the directory waits for, and the horizon would be written again into a directory the
   * server has already given up.
   */
  @Test
  void aRenewalOrHoldAfterTheDataDirectoryClosedIsRefusedAndTheHorizonNotWritten()
      throws Exception {
    DataDirectory data = DataDirectory.open(dir, 1_000);
    LockTable table =
        new LockTable(data.sequence(), data.horizon(), 0, core, new ServerMetrics(), 10, 100, 100);
    Session session = new Session(channel, true, LockServer.builder().port(0).build().runtime());

    assertThat(answer(table, session, "a ACQUIRE renewed 10000 0 tok-a")).startsWith("a OK tok-a ");
    assertThat(answer(table, session, "b ACQUIRE held 10000 0 tok-b")).startsWith("b OK tok-b ");
    // As the stop does once the connections are closed: on the core thread, the sequence and then
    // the horizon are closed, and the directory is given up.
    data.close(core, table::latestLeftMillis);
    long horizon = storedHorizon();
    assertThat(horizon).as("the horizon written at the close").isPositive();

    assertThat(answer(table, session, "r RENEW renewed tok-a 600000"))
        .isEqualTo("r ERR SHUTTING_DOWN the server is stopping; the lease is unchanged");
    assertThat(answer(table, session, "h HOLD held tok-b 600000"))
        .isEqualTo("h ERR SHUTTING_DOWN the server is stopping; the lease is unchanged");
    assertThat(storedHorizon()).as("the horizon after the close").isEqualTo(horizon);
    assertThat(leftMillis(answer(table, session, "s STATUS renewed")))
        .as("the lease's time left, not extended")
        .isLessThanOrEqualTo(10_000);
  }

  private long storedHorizon() throws Exception {
    return StoredNumber.read(dir.resolve(LeaseHorizon.FILE_NAME), text -> text);
  }

  /** Hands {@code line} to the table and returns its one reply. */
  private String answer(LockTable table, Session session, String line) throws Exception {
    table.handle(session, parser.parse(line), System.nanoTime());
    ByteBuf reply = channel.readOutbound();
    assertThat(reply).as("a reply to " + line).isNotNull();
    try {
      assertThat((Object) channel.readOutbound()).as("a second reply to " + line).isNull();
      return reply.toString(StandardCharsets.UTF_8).strip();
    } finally {
      reply.release();
    }
  }

  /** The ms left of a {@code HELD} status: {@code s HELD <token> <ms-left> <waiters> <owner>}. */
  private static long leftMillis(String status) {
    assertThat(status).startsWith("s HELD ");
    return Long.parseLong(status.split(" ")[3]);
  }
}
