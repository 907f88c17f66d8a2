package dev.locksmith.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Node names of lock ids, and the queue order of lease nodes. */
class LockPathsTest {

  @Test
  void theQueueKeepsCreationOrderAcrossTheSequenceCounterWrap() {
    // ZooKeeper formats the parent's signed child counter with %010d: after 2^31 creates it goes
    // negative, and its last ten characters no longer rise.
    assertThat(
            LockPaths.queue(
                List.of(
                    "_c_d-lease--2147483647",
                    "_c_c-lease--2147483648",
                    "_c_b-lease-2147483647",
                    "_c_a-lease-2147483646")))
        .containsExactly(
            "_c_a-lease-2147483646",
            "_c_b-lease-2147483647",
            "_c_c-lease--2147483648",
            "_c_d-lease--2147483647");
    assertThat(LockPaths.queue(List.of("_c_b-lease-0000000005", "_c_a-lease--999999999")))
        .as("far apart: the counter went on from -999999999 to 5")
        .containsExactly("_c_a-lease--999999999", "_c_b-lease-0000000005");
    assertThat(LockPaths.queue(List.of("_c_b-lease-0000000010", "_c_a-lease-0000000009")))
        .containsExactly("_c_a-lease-0000000009", "_c_b-lease-0000000010");
  }

  @Test
  void distinctLockIdsGetDistinctNodeNames() {
    String longId = "x".repeat(300);
    List<String> ids =
        List.of(
            "lone:\uD800",
            "lone:\uDBFF",
            "lone:\uDC00",
            "lone:?",
            "pair:\uD83D\uDE00",
            longId,
            longId + "\uD800",
            longId + "\uDBFF",
            longId + "?",
            LockPaths.nodeName(longId),
            "sha256-abc");
    assertThat(ids.stream().map(LockPaths::nodeName).distinct()).hasSameSizeAs(ids);
    assertThat(LockPaths.nodeName("orders:42")).isEqualTo("orders:42");
    assertThat(LockPaths.nodeName("a b")).isEqualTo("a%20b");
  }
}
