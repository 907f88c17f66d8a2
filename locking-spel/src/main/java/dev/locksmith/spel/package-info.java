/**
 * Lock keys in the Spring Expression Language, the key language of every Locksmith integration:
 * {@link dev.locksmith.spel.SpelKeyLanguage}.
 */
@NullMarked
package dev.locksmith.spel;

import org.jspecify.annotations.NullMarked;
