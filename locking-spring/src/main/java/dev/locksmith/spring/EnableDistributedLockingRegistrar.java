package dev.locksmith.spring;

import java.util.Map;
import java.util.Objects;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/** Registers the infrastructure with the settings of {@link EnableDistributedLocking}. */
final class EnableDistributedLockingRegistrar implements ImportBeanDefinitionRegistrar {

  @Override
  public void registerBeanDefinitions(
      AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
    Map<String, Object> attributes =
        Objects.requireNonNull(
            metadata.getAnnotationAttributes(EnableDistributedLocking.class.getName()));
    LockingInfrastructure.register(
        registry,
        (LockingMode) attributes.get("mode"),
        (Integer) attributes.get("order"),
        (Boolean) attributes.get("proxyTargetClass"));
  }
}
