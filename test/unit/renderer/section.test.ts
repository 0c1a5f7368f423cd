import { describe, expect, it } from 'vitest';
import { sectionBelowTitle } from '../../../renderer/src/ui/section.js';

describe('the section shown beside its manual', () => {
  it('drops a leading manual title, whole headings only', () => {
    expect(sectionBelowTitle('Maintenance', 'Maintenance > Weekly')).toBe('Weekly');
    expect(sectionBelowTitle('Spindle warm up', 'Spindle warm up')).toBe('');
    expect(sectionBelowTitle('Maintenance', 'Maintenance schedule > Weekly')).toBe('Maintenance schedule > Weekly');
    expect(sectionBelowTitle('Pump manual', 'Safety > Lockout')).toBe('Safety > Lockout');
    expect(sectionBelowTitle('', 'Safety')).toBe('Safety');
  });
});
