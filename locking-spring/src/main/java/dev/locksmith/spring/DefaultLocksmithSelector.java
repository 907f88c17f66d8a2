package dev.locksmith.spring;

import org.springframework.context.annotation.DeferredImportSelector;
import org.springframework.core.type.AnnotationMetadata;

/**
 * Adds the default engine after the application's own configuration, so that a {@code Locksmith}
 * bean the application defines is seen and kept.
 */
final class DefaultLocksmithSelector implements DeferredImportSelector {

  @Override
  public String[] selectImports(AnnotationMetadata metadata) {
    return new String[] {LocksmithConfiguration.class.getName()};
  }
}
