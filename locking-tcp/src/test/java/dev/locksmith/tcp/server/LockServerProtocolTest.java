package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class LockServerProtocolTest {
  @RegisterExtension
  final RunningServer server = new RunningServer(b -> b.maxWaitersPerLock(2).maxErrors(3));

  @Test
  void acquireRenewStatusReleaseRoundTrip() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      assertThat(c.call("1 PING")).isEqualTo("1 PONG");
      String ok = c.call("2 ACQUIRE orders:42 30000 0 tok-1 host/1/main");
      assertThat(ok).matches("2 OK tok-1 \\d+ 30000");
      long fencing = Long.parseLong(ok.split(" ")[3]);
      assertThat(c.call("3 STATUS orders:42")).matches("3 HELD " + fencing + " \\d+ 0 host/1/main");
      assertThat(c.call("4 RENEW orders:42 tok-1 60000"))
          .isEqualTo("4 OK tok-1 " + fencing + " 60000");
      assertThat(c.call("5 RELEASE orders:42 tok-1")).isEqualTo("5 OK");
      assertThat(c.call("6 RELEASE orders:42 tok-1")).isEqualTo("6 NOTHELD");
      assertThat(c.call("7 RENEW orders:42 tok-1 1000")).isEqualTo("7 NOTHELD");
      assertThat(c.call("8 STATUS orders:42")).isEqualTo("8 FREE 0");
      assertThat(c.call("9 QUIT")).isEqualTo("9 BYE");
      assertThat(c.read()).isNull();
    }
  }

  @Test
  void serverMakesATokenWhenTheClientSendsDash() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      String ok = c.call("a ACQUIRE job 5000 0 -");
      assertThat(ok).matches("a OK [\\x21-\\x7E]+ \\d+ 5000");
      String token = ok.split(" ")[2];
      assertThat(c.call("b RELEASE job " + token)).isEqualTo("b OK");
    }
  }

  @Test
  void percentEncodedLockIdsNameTheSameLock() throws Exception {
    try (LineClient a = new LineClient(server.port());
        LineClient b = new LineClient(server.port())) {
      assertThat(a.call("1 ACQUIRE my%20lock%3A%C3%A9 5000 0 t1")).startsWith("1 OK");
      assertThat(b.call("1 ACQUIRE my%20lock:é 5000 0 t2")).isEqualTo("1 BUSY");
      assertThat(b.call("2 ACQUIRE my%zz 5000 0 t2"))
          .startsWith("2 ERR BAD_ARGUMENT lock id has an invalid %-escape '%zz'");
      assertThat(b.call("3 ACQUIRE %FF 5000 0 t2")).contains("not valid UTF-8");
    }
  }

  @Test
  void waitersAreGrantedInFifoOrderByPush() throws Exception {
    try (LineClient holder = new LineClient(server.port());
        LineClient first = new LineClient(server.port());
        LineClient second = new LineClient(server.port())) {
      assertThat(holder.call("1 ACQUIRE q 30000 0 h")).startsWith("1 OK");
      first.sendQueued("w1 ACQUIRE q 30000 10000 f first", holder, 1);
      second.sendQueued("w2 ACQUIRE q 30000 10000 s second", holder, 2);
      assertThat(holder.call("2 RELEASE q h")).isEqualTo("2 OK");
      assertThat(first.read()).matches("w1 OK f \\d+ 30000");
      assertThat(second.silentFor(200)).isTrue();
      assertThat(first.call("x RELEASE q f")).isEqualTo("x OK");
      assertThat(second.read()).matches("w2 OK s \\d+ 30000");
    }
  }

  @Test
  void repliesToRequestsThatDoNotWaitKeepRequestOrder() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      StringBuilder batch = new StringBuilder();
      for (int i = 0; i < 300; i++) {
        batch.append('s').append(i).append(" STATUS k").append(i % 7).append('\n');
        batch.append('p').append(i).append(" PING\n");
        if (i % 10 == 0) {
          batch.append('a').append(i).append(" AUTH anything\n");
          batch.append('e').append(i).append(" FROB\n");
        }
      }
      c.sendBytes(batch.toString().getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      for (int i = 0; i < 300; i++) {
        assertThat(c.read()).isEqualTo("s" + i + " FREE 0");
        assertThat(c.read()).isEqualTo("p" + i + " PONG");
        if (i % 10 == 0) {
          assertThat(c.read()).isEqualTo("a" + i + " OK");
          assertThat(c.read()).startsWith("e" + i + " ERR UNKNOWN_COMMAND");
        }
      }
    }
  }

  @Test
  void quitClosesOnlyAfterTheEarlierRepliesWereSent() throws Exception {
    for (int round = 0; round < 20; round++) {
      try (LineClient c = new LineClient(server.port())) {
        assertThat(c.call("1 ACQUIRE quit 30000 0 t")).startsWith("1 OK");
        c.sendBytes(
            "2 RELEASE quit t\n3 STATUS quit\n4 QUIT\n5 PING\n"
                .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(c.read()).isEqualTo("2 OK");
        assertThat(c.read()).isEqualTo("3 FREE 0");
        assertThat(c.read()).isEqualTo("4 BYE");
        assertThat(c.read()).isNull();
      }
    }
  }

  @Test
  void fencingTokensIncreaseWithEveryGrant() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      long previous = 0;
      for (int i = 0; i < 5; i++) {
        String ok = c.call(i + " ACQUIRE f 5000 0 t" + i);
        long fencing = Long.parseLong(ok.split(" ")[3]);
        assertThat(fencing).isGreaterThan(previous);
        previous = fencing;
        assertThat(c.call("r" + i + " RELEASE f t" + i)).endsWith("OK");
      }
    }
  }

  @Test
  void waitRunsOutWithTimeoutAndCancelWithdrawsAWaiter() throws Exception {
    try (LineClient holder = new LineClient(server.port());
        LineClient waiter = new LineClient(server.port())) {
      assertThat(holder.call("1 ACQUIRE t 30000 0 h")).startsWith("1 OK");
      long start = System.nanoTime();
      assertThat(waiter.call("2 ACQUIRE t 30000 150 w")).isEqualTo("2 TIMEOUT");
      assertThat(Duration.ofNanos(System.nanoTime() - start))
          .isGreaterThanOrEqualTo(Duration.ofMillis(140));
      waiter.sendQueued("3 ACQUIRE t 30000 60000 w", holder, 1);
      waiter.send("4 CANCEL 3");
      assertThat(waiter.read()).isEqualTo("3 CANCELLED");
      assertThat(waiter.read()).isEqualTo("4 OK");
      assertThat(waiter.call("5 CANCEL 3")).isEqualTo("5 NOTWAITING");
      assertThat(holder.call("6 RELEASE t h")).isEqualTo("6 OK");
      assertThat(holder.status("t")).isEqualTo("s FREE 0");
    }
  }

  @Test
  void renewAndReleaseAreOwnerChecked() throws Exception {
    try (LineClient owner = new LineClient(server.port());
        LineClient other = new LineClient(server.port())) {
      assertThat(owner.call("1 ACQUIRE o 30000 0 mine")).startsWith("1 OK");
      assertThat(other.call("1 RELEASE o theirs")).isEqualTo("1 NOTHELD");
      assertThat(other.call("2 RELEASE o mine")).isEqualTo("2 NOTHELD");
      assertThat(other.call("3 RENEW o mine 1000")).isEqualTo("3 NOTHELD");
      assertThat(owner.call("2 RELEASE o theirs")).isEqualTo("2 NOTHELD");
      assertThat(owner.status("o")).startsWith("s HELD");
    }
  }

  @Test
  void expiredLeaseIsHandedToTheWaiterWithoutPolling() throws Exception {
    try (LineClient holder = new LineClient(server.port());
        LineClient waiter = new LineClient(server.port())) {
      assertThat(holder.call("1 ACQUIRE e 200 0 h")).startsWith("1 OK");
      assertThat(waiter.call("1 ACQUIRE e 5000 5000 w")).startsWith("1 OK w");
      assertThat(holder.call("2 RENEW e h 1000")).isEqualTo("2 NOTHELD");
    }
  }

  @Test
  void closingAConnectionReleasesItsLeasesAtOnceAndSkipsItsWaits() throws Exception {
    try (LineClient waiter = new LineClient(server.port());
        LineClient observer = new LineClient(server.port())) {
      LineClient holder = new LineClient(server.port());
      LineClient gone = new LineClient(server.port());
      assertThat(holder.call("1 ACQUIRE d 60000 0 h")).startsWith("1 OK");
      gone.sendQueued("1 ACQUIRE d 60000 60000 g", observer, 1);
      waiter.sendQueued("1 ACQUIRE d 60000 60000 w", observer, 2);
      gone.close();
      await().until(() -> observer.waiters("d") == 1);
      long start = System.nanoTime();
      holder.close();
      assertThat(waiter.read()).matches("1 OK w \\d+ 60000");
      assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(1));
    }
  }

  @Test
  void malformedLinesGetErrorsNamingTheProblemAndRepeatedGarbageCloses() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      assertThat(c.call("1 FROB x")).startsWith("1 ERR UNKNOWN_COMMAND unknown command 'FROB'");
      assertThat(c.call("2 ACQUIRE x ten 0 t"))
          .isEqualTo("2 ERR BAD_ARGUMENT ttl-ms 'ten' is not a whole number");
      assertThat(c.call("3 PING")).isEqualTo("3 PONG");
      assertThat(c.call("!!")).startsWith("* ERR SYNTAX request id '!!' is invalid");
      assertThat(c.call("4 RELEASE x")).startsWith("4 ERR SYNTAX RELEASE takes 2 arguments, got 1");
      assertThat(c.call("5 ACQUIRE x 0 0 t")).contains("ttl-ms 0 is out of range");
      assertThat(c.read()).isEqualTo("* BYE too-many-errors");
      assertThat(c.read()).isNull();
    }
    try (LineClient c = new LineClient(server.port())) {
      assertThat(c.call("1 PING")).isEqualTo("1 PONG");
    }
  }

  @Test
  void linesThatAreNotTextStillNameTheirRequest() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      c.sendBytes("7 STATUS caf\u00e9\n".getBytes(StandardCharsets.ISO_8859_1));
      assertThat(c.read()).isEqualTo("7 ERR SYNTAX line is not valid UTF-8");
      c.sendBytes("8\tSTATUS a\u0001b\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(c.read()).isEqualTo("8 ERR SYNTAX control character 0x1 at column 11");
      c.sendBytes("\u0001 STATUS a\n".getBytes(StandardCharsets.US_ASCII));
      assertThat(c.read())
          .as("no valid request id to name")
          .isEqualTo("* ERR SYNTAX control character 0x1 at column 1");
    }
  }

  @Test
  void tooLongLinesAreDiscardedWithAnErrorThatNamesTheirRequest() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      c.send("1 STATUS " + "x".repeat(LockServer.DEFAULT_MAX_LINE_LENGTH));
      assertThat(c.read()).startsWith("1 ERR LINE_TOO_LONG line longer than 262144 bytes");
      assertThat(c.call("2 STATUS " + "k".repeat(1025)))
          .startsWith("2 ERR LIMIT lock id is 1025 bytes");
      assertThat(c.call("3 PING"))
          .as("bad lines in a row close the connection")
          .isEqualTo("3 PONG");
      c.send("x".repeat(LockServer.DEFAULT_MAX_LINE_LENGTH + 1));
      assertThat(c.read())
          .as("no valid request id to name")
          .startsWith("* ERR LINE_TOO_LONG line longer than 262144 bytes");
      c.send("4 STATUS " + "y".repeat(LockServer.DEFAULT_MAX_LINE_LENGTH) + "\r");
      assertThat(c.read()).startsWith("4 ERR LINE_TOO_LONG");
      assertThat(c.call("5 PING")).isEqualTo("5 PONG");
    }
  }

  @Test
  void waitersPerLockAreLimited() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      assertThat(c.call("1 ACQUIRE l 30000 0 h")).startsWith("1 OK");
      c.send("2 ACQUIRE l 30000 30000 a");
      c.send("3 ACQUIRE l 30000 30000 b");
      assertThat(c.call("4 ACQUIRE l 30000 30000 c"))
          .isEqualTo("4 ERR LIMIT lock already has the maximum of 2 waiters");
      assertThat(c.call("5 ACQUIRE l 30000 30000 d")).startsWith("5 ERR LIMIT");
      assertThat(c.call("6 ACQUIRE other 30000 0 e")).startsWith("6 OK");
    }
  }

  @Test
  void shutdownTellsClients() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      assertThat(c.call("1 ACQUIRE s 30000 0 h")).startsWith("1 OK");
      server.server().close();
      assertThat(c.readUntilClosed()).isEqualTo("* BYE shutting-down");
    }
  }

  @Test
  void idleConnectionsAreClosed() throws Exception {
    try (LockServer idle = RunningServer.start(b -> b.idleTimeout(Duration.ofMillis(300)));
        LineClient c = new LineClient(idle.port())) {
      assertThat(c.call("1 PING")).isEqualTo("1 PONG");
      assertThat(c.readUntilClosed()).isEqualTo("* BYE idle");
    }
  }

  @Test
  void connectionsAboveTheLimitAreRefused() throws Exception {
    try (LockServer small = RunningServer.start(b -> b.maxConnections(2))) {
      int smallPort = small.port();
      try (LineClient a = new LineClient(smallPort)) {
        assertThat(a.call("1 PING")).isEqualTo("1 PONG");
        try (LineClient b = new LineClient(smallPort)) {
          assertThat(b.call("1 PING")).isEqualTo("1 PONG");
          try (LineClient c = new LineClient(smallPort)) {
            assertThat(c.readUntilClosed()).isEqualTo("* BYE too-many-connections");
          }
        }
      }
    }
  }
}
