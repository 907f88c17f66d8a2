package dev.locksmith.consumers.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.consumers.Settlement;
import dev.locksmith.consumers.SettlementSmoke;
import dev.locksmith.core.Locksmith;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

/** The starter's auto-configuration over {@code mem:}: the concurrent call is skipped. */
@SpringBootTest(properties = "locksmith.url=mem:consumer")
class BootSmokeTest {
  @Autowired Settlement settlement;
  @Autowired Locksmith locksmith;

  @Test
  void theSecondConcurrentCallIsSkipped() throws Exception {
    assertThat(locksmith.providers()).containsKey("");
    SettlementSmoke.theSecondConcurrentCallIsSkipped(settlement);
  }
}
