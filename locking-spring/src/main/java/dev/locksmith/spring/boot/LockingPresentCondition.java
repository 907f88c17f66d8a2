package dev.locksmith.spring.boot;

import dev.locksmith.core.Locksmith;
import dev.locksmith.spring.LockingInfrastructure;
import org.springframework.boot.autoconfigure.condition.AnyNestedCondition;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;

/**
 * Matches when there is an engine, or when {@code @EnableDistributedLocking} registered the
 * interception: its engine is added after the auto-configurations, so a plain bean condition does
 * not see it yet.
 */
final class LockingPresentCondition extends AnyNestedCondition {

  LockingPresentCondition() {
    super(ConfigurationPhase.REGISTER_BEAN);
  }

  @ConditionalOnBean(Locksmith.class)
  static final class EngineDefined {}

  @ConditionalOnBean(name = LockingInfrastructure.VALIDATOR_BEAN_NAME)
  static final class InterceptionRegistered {}
}
