import { describe, expect, it } from 'vitest';
import { embeddingKey, embeddingText } from '../../../native/embed/passage-text.js';

describe('what the embedding model reads for a passage', () => {
  it('the manual title and section path, then the passage', () => {
    expect(embeddingText({ manual: 'Press 7 Service Manual', section: 'Hydraulics > Filter', text: 'Release the pressure first.' })).toBe(
      'Press 7 Service Manual > Hydraulics > Filter\nRelease the pressure first.',
    );
  });

  it('no label when the passage has neither', () => {
    expect(embeddingText({ manual: ' ', section: '', text: 'Release the pressure first.' })).toBe('Release the pressure first.');
  });

  it('the cache key follows the text read, so the same passage in another manual or section is embedded again', () => {
    const a = embeddingText({ manual: 'A', section: 'S', text: 'same' });
    const b = embeddingText({ manual: 'B', section: 'S', text: 'same' });
    expect(embeddingKey(a)).not.toBe(embeddingKey(b));
    expect(embeddingKey(a)).toMatch(/^[0-9a-f]{64}$/);
  });
});
