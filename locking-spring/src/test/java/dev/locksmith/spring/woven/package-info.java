/** Test classes woven at compile time with the locking-aspectj aspect. */
@NullMarked
package dev.locksmith.spring.woven;

import org.jspecify.annotations.NullMarked;
