package dev.locksmith.spring;

import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.type.AnnotationMetadata;

/** Registers the infrastructure with the settings of {@link EnableDistributedLocking}. */
final class EnableDistributedLockingRegistrar implements ImportBeanDefinitionRegistrar {

  @Override
  public void registerBeanDefinitions(
      AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
    Map<String, @Nullable Object> attributes =
        Objects.requireNonNull(
            metadata.getAnnotationAttributes(EnableDistributedLocking.class.getName()));
    // Every attribute has a default: each is in the map.
    LockingInfrastructure.register(
        registry,
        (LockingMode) Objects.requireNonNull(attributes.get("mode")),
        (Integer) Objects.requireNonNull(attributes.get("order")),
        (Boolean) Objects.requireNonNull(attributes.get("proxyTargetClass")));
  }
}
