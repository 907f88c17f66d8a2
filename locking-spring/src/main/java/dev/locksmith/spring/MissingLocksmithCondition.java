package dev.locksmith.spring;

import dev.locksmith.core.Locksmith;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.type.AnnotatedTypeMetadata;

/** Matches when no {@link Locksmith} bean has been defined yet. */
final class MissingLocksmithCondition implements ConfigurationCondition {

  @Override
  public ConfigurationPhase getConfigurationPhase() {
    return ConfigurationPhase.REGISTER_BEAN;
  }

  @Override
  public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
    ConfigurableListableBeanFactory beanFactory = context.getBeanFactory();
    return beanFactory == null
        || beanFactory.getBeanNamesForType(Locksmith.class, true, false).length == 0;
  }
}
