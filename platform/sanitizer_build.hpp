// Whether this translation unit is built with a sanitizer that interposes malloc (ASan, TSan,
// MSan): such builds cannot measure allocators and their malloc is the sanitizer's by design.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ALLOCSTRESS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define ALLOCSTRESS_SANITIZED 1
#endif
#endif
