package dev.locksmith.spring.boot;

import dev.locksmith.core.Locksmith;
import dev.locksmith.spring.DisabledLockingWarning;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Role;

/**
 * When {@code locksmith.enabled} is off ({@code false}, {@code off}, {@code no}, {@code 0}): a
 * warning at start-up with the number of {@code @DistributedLock} methods that will run unlocked.
 */
@AutoConfiguration
@ConditionalOnClass(Locksmith.class)
@Conditional(LockingEnabledCondition.Disabled.class)
public final class LocksmithDisabledAutoConfiguration {

  /** Creates the auto-configuration. */
  public LocksmithDisabledAutoConfiguration() {}

  /** Logs the warning once all singletons exist. */
  @Bean
  @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
  static DisabledLockingWarning locksmithDisabledWarning() {
    return new DisabledLockingWarning("locksmith.enabled=false");
  }
}
