package dev.locksmith.tcp.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.locksmith.tcp.internal.Protocol;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code ACQUIRE-ALL}: several locks in one request, all or none, on a real server. */
class AcquireAllProtocolTest {
  private static final Pattern THREE_GRANTED =
      Pattern.compile("1 OK 3 ta (\\d+) tb (\\d+) tc (\\d+) 30000");

  @RegisterExtension
  final RunningServer server = new RunningServer(b -> b.maxLocksPerConnection(8).maxErrors(100));

  @Test
  void grantsEveryLockWithItsOwnIncreasingFencingToken() throws Exception {
    try (LineClient c = new LineClient(server.port());
        LineClient other = new LineClient(server.port())) {
      String ok = c.call("0 ACQUIRE before 30000 0 t0");
      long before = Long.parseLong(ok.split(" ")[3]);
      Matcher m = THREE_GRANTED.matcher(c.call("1 ACQUIRE-ALL 30000 3 a ta b tb c tc web-1/42"));
      assertThat(m.matches()).isTrue();
      long fa = Long.parseLong(m.group(1));
      long fb = Long.parseLong(m.group(2));
      long fc = Long.parseLong(m.group(3));
      assertThat(fa).isGreaterThan(before);
      assertThat(fb).isGreaterThan(fa);
      assertThat(fc).isGreaterThan(fb);
      assertThat(other.call("2 STATUS a")).matches("2 HELD " + fa + " \\d+ 0 web-1/42");
      assertThat(other.call("3 STATUS c")).matches("3 HELD " + fc + " \\d+ 0 web-1/42");
      assertThat(other.call("4 ACQUIRE b 30000 0 x")).isEqualTo("4 BUSY");
      assertThat(c.call("5 RENEW b tb 60000")).isEqualTo("5 OK tb " + fb + " 60000");
      assertThat(c.call("6 RELEASE a ta")).isEqualTo("6 OK");
      assertThat(c.call("7 RELEASE b tb")).isEqualTo("7 OK");
      assertThat(c.call("8 RELEASE c tc")).isEqualTo("8 OK");
      String after = other.call("9 ACQUIRE a 30000 0 y");
      assertThat(Long.parseLong(after.split(" ")[3])).isGreaterThan(fc);
    }
  }

  @Test
  void oneBusyLockTakesNoneAndIsNamed() throws Exception {
    try (LineClient holder = new LineClient(server.port());
        LineClient c = new LineClient(server.port())) {
      assertThat(holder.call("1 ACQUIRE my%20b 30000 0 h")).startsWith("1 OK");
      assertThat(c.call("2 ACQUIRE-ALL 30000 3 a ta my%20b tb c tc")).isEqualTo("2 BUSY my%20b");
      assertThat(holder.call("3 STATUS a")).isEqualTo("3 FREE 0");
      assertThat(holder.call("4 STATUS c")).isEqualTo("4 FREE 0");
      assertThat(server.server().lockCount()).isEqualTo(1);
      assertThat(holder.call("5 RELEASE my%20b h")).isEqualTo("5 OK");
      assertThat(c.call("6 ACQUIRE-ALL 30000 3 a ta my%20b tb c tc")).startsWith("6 OK 3 ta ");
    }
  }

  @Test
  void aLockWithWaitersIsBusyAsForAnAcquireWithoutWait() throws Exception {
    try (LineClient holder = new LineClient(server.port());
        LineClient waiter = new LineClient(server.port());
        LineClient c = new LineClient(server.port())) {
      assertThat(holder.call("1 ACQUIRE q 30000 0 h")).startsWith("1 OK");
      waiter.sendQueued("w ACQUIRE q 30000 10000 wt", holder, 1);
      assertThat(c.call("2 ACQUIRE-ALL 30000 2 p tp q tq")).isEqualTo("2 BUSY q");
      assertThat(holder.call("3 RELEASE q h")).isEqualTo("3 OK");
      assertThat(waiter.read()).matches("w OK wt \\d+ 30000");
      assertThat(c.call("4 STATUS p")).isEqualTo("4 FREE 0");
    }
  }

  @Test
  void theServerMakesTokensForDashes() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      String[] f = c.call("1 ACQUIRE-ALL 5000 2 x - y mine").split(" ");
      assertThat(f).hasSize(8);
      assertThat(f[3]).matches("[0-9a-f]{24}-[0-9a-f]+");
      assertThat(f[5]).isEqualTo("mine");
      assertThat(c.call("2 RELEASE x " + f[3])).isEqualTo("2 OK");
      assertThat(c.call("3 RELEASE y mine")).isEqualTo("3 OK");
    }
  }

  @Test
  void theLocksEndWithTheConnection() throws Exception {
    try (LineClient other = new LineClient(server.port())) {
      try (LineClient c = new LineClient(server.port())) {
        assertThat(c.call("1 ACQUIRE-ALL 30000 3 a ta b tb c tc")).startsWith("1 OK 3");
      }
      await().until(() -> server.server().lockCount() == 0);
      assertThat(other.call("2 ACQUIRE-ALL 30000 2 c x a y")).startsWith("2 OK 2 x ");
    }
  }

  @Test
  void everyLockCountsAgainstTheConnectionsLimit() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      assertThat(c.call("1 ACQUIRE-ALL 30000 5 a - b - c - d - e -")).startsWith("1 OK 5");
      assertThat(c.call("2 ACQUIRE-ALL 30000 4 f - g - h - i -"))
          .isEqualTo(
              "2 ERR LIMIT this connection holds or waits for 5 locks; 4 more would pass the"
                  + " limit of 8");
      assertThat(server.server().lockCount()).isEqualTo(5);
      assertThat(c.call("3 ACQUIRE-ALL 30000 3 f - g - h -")).startsWith("3 OK 3");
      assertThat(c.call("4 ACQUIRE i 30000 0 t")).startsWith("4 ERR LIMIT");
    }
  }

  @Test
  void sixtyFourLockIdsOfTheMaximumSizeFitOneLine() throws Exception {
    StringBuilder line = new StringBuilder("1 ACQUIRE-ALL 30000 64");
    for (int i = 0; i < Protocol.MAX_LOCKS_PER_REQUEST; i++) {
      // 1024 bytes, every one percent-encoded: 3072 characters on the wire.
      String id = String.format("%04d", i) + "é".repeat(510);
      StringBuilder wire = new StringBuilder();
      for (byte b : id.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
        wire.append(String.format("%%%02X", b & 0xFF));
      }
      assertThat(wire).hasSize(3072);
      line.append(' ').append(wire).append(' ').append(String.format("%03d", i).repeat(43), 0, 128);
    }
    line.append(" host/").append("ü".repeat(300));
    assertThat(line.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8).length)
        .isGreaterThan(200_000)
        .isLessThanOrEqualTo(LockServer.DEFAULT_MAX_LINE_LENGTH);
    try (LockServer defaults = RunningServer.start();
        LineClient c = new LineClient(defaults.port())) {
      String ok = c.call(line.toString());
      assertThat(ok.split(" ")).hasSize(3 + 2 * 64 + 1);
      assertThat(ok).startsWith("1 OK 64 ");
      assertThat(defaults.lockCount()).isEqualTo(64);
    }
  }

  @Test
  void sixtyFiveLocksAreOverTheLimit() throws Exception {
    StringBuilder line = new StringBuilder("1 ACQUIRE-ALL 30000 65");
    for (int i = 0; i < 65; i++) {
      line.append(" k").append(i).append(" -");
    }
    try (LineClient c = new LineClient(server.port())) {
      assertThat(c.call(line.toString()))
          .isEqualTo("1 ERR LIMIT n is 65; one ACQUIRE-ALL names at most 64 locks");
      assertThat(server.server().lockCount()).isZero();
    }
  }

  @Test
  void badLinesAreRejectedNamingTheFieldAndTheServerServesOn() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      assertThat(c.call("1 ACQUIRE-ALL 30000"))
          .isEqualTo(
              "1 ERR SYNTAX ACQUIRE-ALL takes '<id> ACQUIRE-ALL <ttl-ms> <n> <lock>"
                  + " <owner-token|-> ... [owner description]'");
      assertThat(c.call("2 ACQUIRE-ALL ten 2 a - b -"))
          .isEqualTo("2 ERR BAD_ARGUMENT ttl-ms 'ten' is not a whole number");
      assertThat(c.call("3 ACQUIRE-ALL 0 1 a -")).contains("ttl-ms 0 is out of range");
      assertThat(c.call("4 ACQUIRE-ALL 30000 two a - b -"))
          .isEqualTo("4 ERR BAD_ARGUMENT n 'two' is not a whole number");
      assertThat(c.call("5 ACQUIRE-ALL 30000 0 a -"))
          .isEqualTo("5 ERR BAD_ARGUMENT n is 0; ACQUIRE-ALL names at least 1 lock");
      assertThat(c.call("6 ACQUIRE-ALL 30000 3 a - b -"))
          .startsWith("6 ERR SYNTAX ACQUIRE-ALL with n 3 needs 3 lock and owner-token pairs;")
          .contains("lock 3 is missing");
      assertThat(c.call("7 ACQUIRE-ALL 30000 2 a - b"))
          .startsWith("7 ERR SYNTAX ACQUIRE-ALL with n 2 needs 2 lock and owner-token pairs;")
          .contains("owner-token of lock 2 is missing");
      assertThat(c.call("8 ACQUIRE-ALL 30000 99999999999999 a -"))
          .isEqualTo("8 ERR BAD_ARGUMENT n '99999999999999' is not a whole number");
      assertThat(c.call("9 ACQUIRE-ALL 30000 3 a - b - a -"))
          .isEqualTo("9 ERR BAD_ARGUMENT lock 3 'a' is lock 1 again; every lock may appear once");
      assertThat(c.call("10 ACQUIRE-ALL 30000 2 a%3Ab - a:b -"))
          .isEqualTo(
              "10 ERR BAD_ARGUMENT lock 2 'a:b' is lock 1 again; every lock may appear once");
      assertThat(c.call("11 ACQUIRE-ALL 30000 2 a - b%zz -"))
          .startsWith("11 ERR BAD_ARGUMENT lock 2: lock id has an invalid %-escape '%zz'");
      assertThat(c.call("12 ACQUIRE-ALL 30000 2 a - " + "k".repeat(1025) + " -"))
          .isEqualTo("12 ERR LIMIT lock 2: lock id is 1025 bytes, longer than the limit 1024");
      assertThat(c.call("13 ACQUIRE-ALL 30000 2 a - b " + "t".repeat(129)))
          .startsWith("13 ERR BAD_ARGUMENT owner token of lock 2 '");
      assertThat(c.call("14 acquire-all 30000 1 a -")).startsWith("14 OK 1 ");
      assertThat(c.call("15 PING")).isEqualTo("15 PONG");
      assertThat(server.server().lockCount()).isEqualTo(1);
    }
  }

  @Test
  void wordsAfterTheNthPairAreTheOwnerDescription() throws Exception {
    try (LineClient c = new LineClient(server.port())) {
      assertThat(c.call("1 ACQUIRE-ALL 30000 1 m tm n tn")).matches("1 OK 1 tm \\d+ 30000");
      assertThat(c.call("2 STATUS m")).matches("2 HELD \\d+ \\d+ 0 n tn");
      assertThat(c.call("3 STATUS n")).isEqualTo("3 FREE 0");
    }
  }

  @Test
  void anIdOfAWaitingAcquireIsRefused() throws Exception {
    try (LineClient holder = new LineClient(server.port());
        LineClient c = new LineClient(server.port())) {
      assertThat(holder.call("1 ACQUIRE q 30000 0 h")).startsWith("1 OK");
      c.sendQueued("w ACQUIRE q 30000 10000 wt", holder, 1);
      assertThat(c.call("w ACQUIRE-ALL 30000 1 p -"))
          .isEqualTo("w ERR DUPLICATE_ID request id w is already waiting");
      assertThat(holder.call("2 STATUS p")).isEqualTo("2 FREE 0");
    }
  }
}
