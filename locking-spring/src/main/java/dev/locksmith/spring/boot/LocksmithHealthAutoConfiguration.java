package dev.locksmith.spring.boot;

import dev.locksmith.core.Locksmith;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;

/**
 * A health contributor named {@code locksmith} with one indicator per provider; turn it off with
 * {@code management.health.locksmith.enabled=false}.
 */
@AutoConfiguration(after = LocksmithAutoConfiguration.class)
@ConditionalOnClass({HealthContributor.class, ConditionalOnEnabledHealthIndicator.class})
@Conditional(LockingPresentCondition.class)
@ConditionalOnEnabledHealthIndicator("locksmith")
public final class LocksmithHealthAutoConfiguration {

  /** Creates the auto-configuration. */
  public LocksmithHealthAutoConfiguration() {}

  /** The {@code locksmith} health contributor. */
  @Bean
  @ConditionalOnMissingBean(name = "locksmithHealthContributor")
  static HealthContributor locksmithHealthContributor(Locksmith locksmith) {
    return LocksmithHealth.contributor(locksmith);
  }
}
