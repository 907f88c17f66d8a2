package dev.locksmith.micronaut.app;

import static org.assertj.core.api.Assertions.assertThat;

import dev.locksmith.micrometer.MicrometerLockListener;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micronaut.context.ApplicationContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * With micronaut-micrometer, every lock meter is registered at zero for each provider when the
 * engine starts, before any lock was taken, lost or failed, as the Spring module does: an alert on
 * {@code locksmith.lost} sees 0, not a missing series.
 */
class MetersAtZeroTest {

  @Test
  void everyCounterAndTimerIsRegisteredAtZeroPerProviderBeforeTheFirstEvent() {
    try (ApplicationContext context =
        ApplicationContext.run(
            Map.of(
                "locksmith.url", "mem:zero-default",
                "locksmith.providers.extra.url", "mem:zero-extra"),
            "meters")) {
      SimpleMeterRegistry meters = context.getBean(SimpleMeterRegistry.class);
      for (String provider : List.of("default", "extra")) {
        for (String name :
            List.of(
                MicrometerLockListener.LOST,
                MicrometerLockListener.ERRORS,
                MicrometerLockListener.HELD,
                MicrometerLockListener.ACQUIRE)) {
          List<Meter> found = List.copyOf(meters.find(name).tag("provider", provider).meters());
          assertThat(found).as("%s for provider %s", name, provider).isNotEmpty();
          assertThat(found)
              .allSatisfy(
                  meter ->
                      assertThat(meter.measure())
                          .filteredOn(m -> m.getStatistic().name().equals("COUNT"))
                          .allSatisfy(m -> assertThat(m.getValue()).isZero()));
        }
      }
      assertThat(meters.find(MicrometerLockListener.ACQUIRE).tag("outcome", "timeout").meters())
          .isNotEmpty();
    }
  }
}
