package dev.locksmith.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.core.spi.LockRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MessageSubjectsTest {

  @Test
  void severalLocksAreNamedAsOneIsWithLongIdsCut() {
    // Ids were quoted whole here: two 1 MB ids made a 2 MB message for a failed set.
    String huge = "doc:" + "x".repeat(1_000_000);
    List<LockRequest> requests =
        List.of(
            LockRequest.of("a", Duration.ofSeconds(5)),
            LockRequest.of(huge, Duration.ofSeconds(5)));

    String named = MessageSubjects.locksNamed(requests);

    assertThat(named).startsWith("locks 'a', 'doc:xxx").endsWith("...' (1000004 chars)");
    assertThat(named).hasSizeLessThan(200);
  }
}
