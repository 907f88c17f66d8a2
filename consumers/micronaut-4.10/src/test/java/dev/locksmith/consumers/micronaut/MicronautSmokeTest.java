package dev.locksmith.consumers.micronaut;

import dev.locksmith.consumers.Settlement;
import dev.locksmith.consumers.SettlementSmoke;
import io.micronaut.context.annotation.Property;
import io.micronaut.test.extensions.junit5.annotation.MicronautTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** The Micronaut integration over {@code mem:}: the concurrent call is skipped. */
@MicronautTest
@Property(name = "locksmith.url", value = "mem:consumer")
class MicronautSmokeTest {
  @Inject Settlement settlement;

  @Test
  void theSecondConcurrentCallIsSkipped() throws Exception {
    SettlementSmoke.theSecondConcurrentCallIsSkipped(settlement);
  }
}
